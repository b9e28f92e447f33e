package netbox

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
	if len(p.Results) != 3 || p.Count != 0 || p.Next == nil {
		t.Fatalf("page = count %d, %d results, next %v; want 0 (null), 3, a link", p.Count, len(p.Results), p.Next)
	}
	second := p.Results[1]
	if second.VRF != nil || second.Role == nil || second.Role.Value != "vip" || refID(second.Tenant) != 12 || second.Description != "gateway — north rack" {
		t.Errorf("second address = vrf %v, role %+v, tenant %d, description %q", second.VRF, second.Role, refID(second.Tenant), second.Description)
	}
	if got := string(p.Results[0].CustomFields["ipsync_owner"]); got != `"site-a"` {
		t.Errorf("owner custom field = %s, want the value as sent", got)
	}
}

// TestDecodeLikeEncodingJSON holds the pages' decoder to what encoding/json does
// with what servers and proxies may send.
func TestDecodeLikeEncodingJSON(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"names in another case", `{"Count":1,"NEXT":null,"Results":[{"ID":5,"Address":"10.0.0.1/24","Status":{"Value":"active","LABEL":"Active"},"VRF":{"Id":2}}]}`},
		{"unknown members everywhere", `{"count":1,"previous":null,"x":{"y":[1,{}]},"results":[{"id":5,"zzz":[],"vrf":{"id":2,"url":"u","rd":null}}]}`},
		{"repeated member", `{"count":1,"count":2,"results":[{"id":5,"id":6,"description":"x","description":null}]}`},
		{"nulls", `{"count":null,"next":null,"results":[{"id":null,"address":null,"status":null,"role":null,"vrf":null,"tags":null,"custom_fields":null}]}`},
		{"invalid utf-8", "{\"results\":[{\"id\":1,\"dns_name\":\"bad \xff here\"}]}"},
		{"same custom fields twice", `{"results":[{"id":1,"custom_fields":{"ipsync_owner":"a","vni":null}},{"id":2,"custom_fields":{"ipsync_owner":"a","vni":null}},{"id":3,"custom_fields":{"ipsync_owner":"b"}}]}`},
		{"repeated custom field", `{"results":[{"id":1,"custom_fields":{"o":"a","o":"b"}}]}`},
		{"string for an id", `{"results":[{"id":"5"}]}`},
		{"fraction for an id", `{"results":[{"id":5.5}]}`},
		{"syntax error", `{"results":[{"id":5}`},
	} {
		decodetest.Both[page[wireIP]](t, newDecoder(), tc.name, tc.in)
	}
	groups := []string{`{"results":[{"id":1,"vid_ranges":[[1,100],[200,4094]],"scope_type":"dcim.site","scope_id":3}]}`,
		`{"results":[{"id":1,"vid_ranges":[[1,100,5]]}]}`, `{"results":[{"id":1,"vid_ranges":[[1]]}]}`, `{"results":[{"id":1,"vid_ranges":null}]}`}
	for _, in := range groups {
		decodetest.Both[page[wireVLANGroup]](t, newDecoder(), in, in)
	}
	changes := []string{
		`{"count":null,"next":null,"results":[{"id":9,"time":"2026-12-06T21:03:11.123456+00:00","action":{"value":"update","label":"Updated"},"changed_object_type":"ipam.ipaddress","changed_object_id":4,"object_repr":"10.0.0.1/24"}]}`,
		`{"results":[{"id":9,"time":"2026-12-06"}]}`,
	}
	for _, in := range changes {
		decodetest.Both[page[wireChange]](t, newDecoder(), in, in)
	}
}

// TestSharedCustomFieldsAreEqual: objects sent the same custom fields may
// share one map, which must still read as each object's own.
func TestSharedCustomFieldsAreEqual(t *testing.T) {
	in := `{"results":[{"id":1,"custom_fields":{"ipsync_owner":"a"}},{"id":2,"custom_fields":{"ipsync_owner":"a"}},{"id":3,"custom_fields":{"ipsync_owner":"b"}}]}`
	var p page[wireIP]
	if err := newDecoder().Decode([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`"a"`, `"a"`, `"b"`} {
		if got := string(p.Results[i].CustomFields["ipsync_owner"]); got != want {
			t.Errorf("object %d: owner = %s, want %s", i, got, want)
		}
	}
}

// ipPage is a page of n IP addresses as NetBox 4.7 answers the list
// ipsync asks for (only the fields it compares).
func ipPage(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"count":null,"next":"https://netbox.example.net/api/ipam/ip-addresses/?fields=%s&limit=%d&start=%d","previous":null,"results":[`,
		"id%2Clast_updated%2Ctags%2Ccustom_fields%2Caddress%2Cvrf%2Cstatus%2Crole%2Ctenant%2Cdns_name%2Cdescription", n, 1000+n)
	const api, ui = "https://netbox.example.net/api/", "https://netbox.example.net/"
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		addr := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		fmt.Fprintf(&b, `{"id":%d,"last_updated":"2026-12-01T00:00:00.%06dZ",`+
			`"tags":[{"id":3,"url":"%sextras/tags/3/","display_url":"%sextras/tags/3/","display":"ipsync","name":"ipsync","slug":"ipsync","color":"9e9e9e"}],`+
			`"custom_fields":{"ipsync_owner":"site-a","vni":null},"address":"%s/24",`+
			`"vrf":{"id":7,"url":"%sipam/vrfs/7/","display_url":"%sipam/vrfs/7/","display":"site-a","name":"site-a","rd":null,"description":""},`+
			`"status":{"value":"active","label":"Active"},"role":null,"tenant":null,"dns_name":"host-%d.example.net","description":""}`,
			1000+i, i, api, ui, addr, api, ui, i)
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
