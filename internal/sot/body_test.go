package sot

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

func TestRef(t *testing.T) {
	known := func(name string) (int, bool) { return map[string]int{"leaf1": 7}[name], name == "leaf1" }
	for _, tc := range []struct {
		name string
		want string
	}{
		{"", "null"},
		{"leaf1", "7"},
		{"leaf2", `{"name":"leaf2"}`},
	} {
		got, _ := json.Marshal(Ref(tc.name, known))
		if string(got) != tc.want {
			t.Errorf("Ref(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestTags(t *testing.T) {
	ref := func(s string) any { return "#" + s }
	for _, tc := range []struct {
		own  []string
		want []any
	}{
		{nil, []any{"#m"}},
		{[]string{"a", "b"}, []any{"#m", "#a", "#b"}},
		{[]string{"a", "m"}, []any{"#m", "#a"}},
	} {
		if got := Tags("m", tc.own, ref); !slices.Equal(got, tc.want) {
			t.Errorf("Tags(m, %q) = %v, want %v", tc.own, got, tc.want)
		}
	}
}

func TestMarkerFields(t *testing.T) {
	for _, tc := range []struct {
		o    resource.Object
		want string
	}{
		{&resource.VLAN{M: resource.Meta{Owner: me}}, `{"owner":"static:me"}`},
		{&resource.Prefix{M: resource.Meta{Owner: me}}, `{"owner":"static:me","vni":null}`},
		{&resource.Prefix{M: resource.Meta{Owner: me}, VNI: 5001}, `{"owner":"static:me","vni":5001}`},
	} {
		got, _ := json.Marshal(MarkerFields(tc.o, "owner", "vni"))
		if string(got) != tc.want {
			t.Errorf("MarkerFields(%s) = %s, want %s", tc.o.Key(), got, tc.want)
		}
	}
}

func TestVNI(t *testing.T) {
	for _, tc := range []struct {
		cf    string
		want  uint32
		fails bool
	}{
		{`{}`, 0, false},
		{`{"vni":null}`, 0, false},
		{`{"vni":5001}`, 5001, false},
		{`{"other":3}`, 0, false},
		{`{"vni":"x"}`, 0, true},
		{`{"vni":-1}`, 0, true},
	} {
		var cf map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.cf), &cf); err != nil {
			t.Fatal(err)
		}
		got, err := VNI("10.0.0.0/24", cf, "vni")
		if got != tc.want || (err != nil) != tc.fails {
			t.Errorf("VNI(%s) = %d, %v; want %d, error %v", tc.cf, got, err, tc.want, tc.fails)
		}
	}
}

func TestPatch(t *testing.T) {
	full := map[string]any{"tags": []any{"m"}, "custom_fields": map[string]any{"owner": "x"},
		"name": "n", "vid": 5, "status": "active", "description": "d"}
	keys := func(f string) ([]string, error) {
		switch f {
		case "name":
			return []string{"name"}, nil
		case "vid":
			return []string{"vid", "vlan_group"}, nil
		case "tenant":
			return []string{"tenant"}, nil
		}
		return nil, fmt.Errorf("no field %s", f)
	}
	missing := func(field, key string) (any, error) {
		if key == "tenant" {
			return nil, errors.New("no tenants here")
		}
		return nil, nil
	}
	for _, tc := range []struct {
		name   string
		fields []string
		want   string
		fails  bool
	}{
		{"marker only", nil, `{"custom_fields":{"owner":"x"},"id":9,"tags":["m"]}`, false},
		{"changed fields", []string{"name"}, `{"custom_fields":{"owner":"x"},"id":9,"name":"n","tags":["m"]}`, false},
		{"a key the create lacks", []string{"vid"}, `{"custom_fields":{"owner":"x"},"id":9,"tags":["m"],"vid":5,"vlan_group":null}`, false},
		{"a field with no keys", []string{"role"}, "", true},
		{"a key with no place", []string{"tenant"}, "", true},
	} {
		ch := &plan.Change{Action: plan.Update}
		for _, f := range tc.fields {
			ch.Fields = append(ch.Fields, resource.FieldDiff{Field: f})
		}
		b, err := Patch(ch, 9, full, keys, missing)
		if tc.fails {
			if err == nil {
				t.Errorf("Patch %s = %v, want an error", tc.name, b)
			}
			continue
		}
		got, _ := json.Marshal(b)
		if err != nil || string(got) != tc.want {
			t.Errorf("Patch %s = %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}

func TestMarked(t *testing.T) {
	typeOf := func(k resource.Kind) (string, bool) {
		t, ok := map[resource.Kind]string{resource.KindVLAN: "ipam.vlan", resource.KindPrefix: "ipam.prefix"}[k]
		return t, ok
	}
	vlan := &resource.VLAN{Group: "g", VID: 1}
	pfx := netip.MustParsePrefix("10.0.0.0/24")
	change := func(a plan.Action, o resource.Object) *plan.Change {
		return &plan.Change{Action: a, Key: o.Key(), Desired: o}
	}
	for _, tc := range []struct {
		name   string
		writes []*plan.Change
		types  []string
		fields string
	}{
		{"nothing", nil, nil, "map[]"},
		{"deletes write no marker", []*plan.Change{change(plan.Delete, vlan)}, nil, "map[]"},
		{"types once each", []*plan.Change{change(plan.Create, vlan), change(plan.Update, vlan),
			change(plan.Create, &resource.Prefix{Prefix: pfx})}, []string{"ipam.vlan", "ipam.prefix"}, "map[]"},
		{"a VNI", []*plan.Change{change(plan.Adopt, &resource.Prefix{Prefix: pfx, VNI: 7})},
			[]string{"ipam.prefix"}, "map[vni:[ipam.prefix]]"},
		{"a kind without a type", []*plan.Change{change(plan.Create, &resource.ASN{ASN: 1})}, nil, "map[]"},
	} {
		types, fields := Marked(tc.writes, typeOf, "vni", "ipam.prefix")
		if !slices.Equal(types, tc.types) || fmt.Sprint(fields) != tc.fields {
			t.Errorf("Marked %s = %v, %v; want %v, %s", tc.name, types, fields, tc.types, tc.fields)
		}
	}
}
