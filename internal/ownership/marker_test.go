package ownership

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

var m = Marker{Tag: "managed-by-ipsync", OwnerField: "ipsync_owner"}

func TestOwner(t *testing.T) {
	tests := []struct {
		name   string
		tagged bool
		cf     string
		want   resource.Owner
	}{
		{"tagged with an owner", true, `{"ipsync_owner": "static:deploy"}`, "static:deploy"},
		{"owner without the tag", false, `{"ipsync_owner": "static:deploy"}`, ""},
		{"tag without an owner", true, `{"vni": 5}`, ""},
		{"tag with a null owner", true, `{"ipsync_owner": null}`, ""},
		{"owner not a string", true, `{"ipsync_owner": 7}`, ""},
	}
	for _, tt := range tests {
		var cf map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tt.cf), &cf); err != nil {
			t.Fatal(err)
		}
		if got := m.Owner(tt.tagged, cf); got != tt.want {
			t.Errorf("%s: Owner(%v, %s) = %q, want %q", tt.name, tt.tagged, tt.cf, got, tt.want)
		}
	}
}

func TestCheck(t *testing.T) {
	all := Found{Tag: true, TagTypes: []string{"ipam.prefix", "ipam.vlan"},
		Fields: map[string][]string{"ipsync_owner": {"ipam.prefix", "ipam.vlan"}, "vni": {"ipam.prefix"}}}
	tests := []struct {
		name   string
		found  Found
		marked []string
		fields map[string][]string
		want   string // part of the error; "" for none
	}{
		{"all there", all, []string{"ipam.vlan", "ipam.prefix"}, map[string][]string{"vni": {"ipam.prefix"}}, ""},
		{"nothing marked", Found{}, nil, nil, ""},
		{"no tag", Found{Fields: all.Fields}, []string{"ipam.vlan"}, nil,
			`tag "managed-by-ipsync" does not exist in netbox; run ipsync bootstrap first`},
		{"tag not for the type", Found{Tag: true, TagTypes: []string{"ipam.vlan"}, Fields: all.Fields}, []string{"ipam.vlan", "ipam.prefix"}, nil,
			`tag "managed-by-ipsync" may not be used on ipam.prefix; run ipsync bootstrap first`},
		{"no owner field", Found{Tag: true, TagTypes: all.TagTypes}, []string{"ipam.vlan"}, nil,
			`custom field "ipsync_owner" does not exist in netbox; run ipsync bootstrap first`},
		{"owner field not for the type", Found{Tag: true, TagTypes: all.TagTypes, Fields: map[string][]string{"ipsync_owner": {"ipam.vlan"}}}, []string{"ipam.prefix"}, nil,
			`custom field "ipsync_owner" is not defined for ipam.prefix; run ipsync bootstrap first`},
		{"further field missing", Found{Tag: true, TagTypes: all.TagTypes, Fields: map[string][]string{"ipsync_owner": {"ipam.prefix"}}}, []string{"ipam.prefix"}, map[string][]string{"vni": {"ipam.prefix"}},
			`custom field "vni" does not exist in netbox; run ipsync bootstrap first`},
		{"owner field filtered exactly", Found{Tag: true, TagTypes: all.TagTypes, Fields: all.Fields, FilterLogic: map[string]string{"ipsync_owner": "exact", "vni": "loose"}},
			[]string{"ipam.vlan"}, nil, ""},
		{"owner field filtered loosely", Found{Tag: true, TagTypes: all.TagTypes, Fields: all.Fields, FilterLogic: map[string]string{"ipsync_owner": "loose"}},
			[]string{"ipam.vlan"}, nil, `custom field "ipsync_owner" has filter logic "loose" in netbox: ipsync finds each owner's objects by filtering on it, which needs exact`},
		{"owner field not filtered", Found{Tag: true, TagTypes: all.TagTypes, Fields: all.Fields, FilterLogic: map[string]string{"ipsync_owner": "disabled"}},
			[]string{"ipam.vlan"}, nil, `has filter logic "disabled"`},
	}
	for _, tt := range tests {
		err := m.Check("netbox", tt.found, tt.marked, tt.fields)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Check = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Check = %v, want %q", tt.name, err, tt.want)
		}
	}
}
