package nautobot

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/httpapi/decodetest"
)

func TestDecodeIPAddressPage(t *testing.T) {
	raw, err := os.ReadFile("testdata/ip-addresses-page.json")
	if err != nil {
		t.Fatal(err)
	}
	p := decodetest.Both[page[wireIP]](t, newDecoder(), "fixture", string(raw))
	if len(p.Results) != 3 || p.Count != 3 || p.Next == nil {
		t.Fatalf("page = count %d, %d results, next %v; want 3, 3, a link", p.Count, len(p.Results), p.Next)
	}
	second := p.Results[1]
	if refID(second.Role) != "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f" || second.Description != "gateway — north rack" {
		t.Errorf("second address = role %q, description %q", refID(second.Role), second.Description)
	}
	if got := string(p.Results[0].CustomFields["note"]); got != `"caf\u00e9 \"quoted\""` {
		t.Errorf("custom field note = %s, want the value as sent", got)
	}
	if got := string(second.CustomFields["ipsync_owner"]); got != "null" {
		t.Errorf("null custom field = %q, want null", got)
	}
}

// TestDecodeLikeEncodingJSON holds the pages' decoder to what encoding/json does
// with what servers and proxies may send: names in another case, unknown
// and repeated members, nulls, invalid UTF-8, numbers in strings.
func TestDecodeLikeEncodingJSON(t *testing.T) {
	ip := `{"id":"a","address":"10.0.0.1/24","status":{"id":"s"}}`
	for _, tc := range []struct{ name, in string }{
		{"names in another case", `{"Count":1,"NEXT":null,"Results":[{"ID":"a","Address":"10.0.0.1/24","Status":{"Id":"s"},"DNS_Name":"x","Custom_Fields":{"o":1}}]}`},
		{"unknown members everywhere", `{"count":1,"previous":null,"x":{"y":[1,{}]},"results":[{"id":"a","zzz":[],"status":{"id":"s","url":"u","display":"Active"}}]}`},
		{"repeated member", `{"count":1,"count":2,"results":[{"id":"a","id":"b","description":"x","description":null}]}`},
		{"nulls", `{"count":null,"next":null,"results":[{"id":null,"address":null,"status":null,"role":null,"tags":null,"custom_fields":null,"dns_name":null}]}`},
		{"null results", `{"count":0,"results":null}`},
		{"invalid utf-8", "{\"count\":1,\"results\":[{\"id\":\"a\",\"description\":\"bad \xff\xfe here\"}]}"},
		{"escapes", `{"results":[{"id":"\u0061\ud83d\ude00","description":"tab\tnew\nline \/ \\"}]}`},
		{"custom fields of every type", `{"results":[{"id":"a","custom_fields":{"s":"x","n":-1.5e3,"b":false,"z":null,"l":[1,"a"],"o":{"k":{}}}}]}`},
		{"whitespace", " \n{ \"count\" : 1 ,\"results\" : [ " + ip + " ] }\n"},
		{"empty", ``},
		{"syntax error", `{"count":1,`},
		{"trailing garbage", `{"count":1} x`},
		{"number for a string", `{"results":[{"id":5}]}`},
		{"string for a number", `{"count":"5"}`},
		{"fraction for an int", `{"count":1.5}`},
	} {
		decodetest.Both[page[wireIP]](t, newDecoder(), tc.name, tc.in)
	}
	vlans := []string{`{"results":[{"id":"a","vid":4094,"vlan_group":{"id":"g"}}]}`, `{"results":[{"id":"a","vid":70000}]}`, `{"results":[{"id":"a","vid":-1}]}`}
	for _, in := range vlans {
		decodetest.Both[page[wireVLAN]](t, newDecoder(), in, in)
	}
	prefixes := []string{`{"results":[{"id":"a","prefix":"10.0.0.0/8","type":{"value":"network","label":"Network"},"locations":[{"id":"l"}]}]}`,
		`{"results":[{"id":"a","prefix":"10.0.0.0/8","type":null,"locations":null}]}`, `{"results":[{"id":"a","locations":[]}]}`}
	for _, in := range prefixes {
		decodetest.Both[page[wirePrefix]](t, newDecoder(), in, in)
	}
	changes := []string{
		`{"count":2,"next":null,"results":[{"id":"c1","time":"2026-12-06T21:03:11.123456Z","action":{"value":"update","label":"Update"},"changed_object_type":"ipam.ipaddress","changed_object_id":"a","object_repr":"10.0.0.1/24","object_data":{"address":"10.0.0.1/24","tags":[]}},` +
			`{"id":"c2","time":"2026-12-06T23:03:11+02:00","action":{"value":"delete"},"object_data":null}]}`,
		`{"results":[{"id":"c1","time":"not a time"}]}`,
	}
	for _, in := range changes {
		decodetest.Both[page[wireChange]](t, newDecoder(), in, in)
	}
	types := []string{`{"results":[{"id":12,"app_label":"ipam","model":"prefix"},{"id":"13"},{"id":null}]}`, `{"results":[{"id":"x"}]}`, `{"results":[{"id":true}]}`}
	for _, in := range types {
		decodetest.Both[page[wireContentType]](t, newDecoder(), in, in)
	}
}

// ipPage is a page of n IP addresses as Nautobot 3.x answers a depth-0
// list: every field it sends, of which ipsync reads a few.
func ipPage(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"count":%d,"next":"https://nautobot.example.net/api/ipam/ip-addresses/?depth=0&limit=%d&offset=%d&sort=id","previous":null,"results":[`, 100*n, n, n)
	const status, parent, tag = "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e", "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a", "9f0a1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c"
	const api = "https://nautobot.example.net/api/"
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		id := fmt.Sprintf("%08x-4e5f-4a6b-8c7d-9e0f1a2b3c4d", i)
		addr := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		fmt.Fprintf(&b, `{"id":%q,"object_type":"ipam.ipaddress","display":"%s/24","url":"%sipam/ip-addresses/%s/","natural_slug":"%s_global_%s",`+
			`"ip_version":4,"address":"%s/24","host":%q,"mask_length":24,"type":"host","dns_name":"host-%d.example.net","description":"",`+
			`"status":{"id":%q,"object_type":"extras.status","url":"%sextras/statuses/%s/"},"role":null,`+
			`"parent":{"id":%q,"object_type":"ipam.prefix","url":"%sipam/prefixes/%s/"},"tenant":null,"nat_inside":null,`+
			`"created":"2026-12-01T00:00:00.%06dZ","last_updated":"2026-12-01T00:00:00.%06dZ",`+
			`"tags":[{"id":%q,"object_type":"extras.tag","url":"%sextras/tags/%s/"}],"notes_url":"%sipam/ip-addresses/%s/notes/",`+
			`"custom_fields":{"ipsync_owner":"site-a","vni":null}}`,
			id, addr, api, id, addr, id[:4], addr, addr, i, status, api, status, parent, api, parent, i, i, tag, api, tag, api, id)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func TestIPPageDecodes(t *testing.T) {
	p := decodetest.Both[page[wireIP]](t, newDecoder(), "generated page", string(ipPage(3)))
	if len(p.Results) != 3 || p.Results[2].Address != "10.0.0.2/24" {
		t.Fatalf("generated page = %+v", p.Results)
	}
}

// BenchmarkDecodeIPPage decodes a page of 1,000 IP addresses as the
// pager did before (encoding/json) and as it does now, in one run so the
// ratio holds on a noisy machine.
func BenchmarkDecodeIPPage(b *testing.B) {
	raw := ipPage(1000)
	for _, d := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"encoding-json", json.Unmarshal}, {"json-v2", newDecoder().Decode}} {
		b.Run("decoder="+d.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				var p page[wireIP]
				if err := d.decode(raw, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
