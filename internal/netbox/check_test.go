package netbox

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestCheck asks a real NetBox's target what it cannot hold: each desired
// object is refused for the field named, with a message saying what to
// do, or accepted.
func TestCheck(t *testing.T) {
	e := realEnv(t, nil, false)
	tgt, err := e.c.Target(scope.Static(owner)).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		obj   resource.Object
		field string // the field refused; "" when accepted
		msg   string // part of the message
	}{
		{"a plain vlan", &resource.VLAN{M: meta(), Group: "g", VID: 1, Name: "a", Status: "Active", Role: "storage", Tenant: "acme"}, "", ""},
		{"segment range", &resource.SegmentRange{Name: "r", NetworkType: "vlan", Minimum: 1, Maximum: 2}, "", "netbox holds no segment ranges"},
		{"the global table declared", &resource.Namespace{M: meta(), Name: GlobalNamespace, Description: "global"}, "name", "global table"},
		{"namespace with a location", &resource.Namespace{M: meta(), Name: "n", Location: "a11"}, "location", "a VRF has no location"},
		{"prefix with two locations", &resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx("10.0.0.0/24"), Type: "network", Status: "Active", Locations: []string{"a11", "a12"}},
			"locations", "one scope"},
		{"container with a status", &resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx("10.0.0.0/8"), Type: "container", Status: "Reserved"}, "status", "leave status Active"},
		{"vlan status only ip addresses have", &resource.VLAN{M: meta(), Group: "g", VID: 1, Name: "a", Status: "DHCP"}, "status", "Active, Reserved, Deprecated"},
		{"ip address role that is an ipam role", &resource.IPAddress{M: meta(), Namespace: "n", Address: pfx("10.0.0.1/24"), Status: "Active", Role: "oob"}, "role", "Loopback"},
		{"prefix role that is an ip address role", &resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx("10.0.0.0/24"), Type: "network", Status: "Active", Role: "Loopback"}, "role", "ipam roles"},
		{"asn with a status", &resource.ASN{M: meta(), ASN: 65099, Status: "Planned"}, "status", "has no status"},
		{"asn of an unknown rir", &resource.ASN{M: meta(), ASN: 65000, Status: "Active", RIR: "ripe"}, "rir", `rir "ripe" does not exist`},
		{"asn of the configured rir", &resource.ASN{M: meta(), ASN: 65000, Status: "Active"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tgt.Check(plan.Change{Action: plan.Create, Key: tc.obj.Key(), Desired: tc.obj}, nil)
			switch {
			case tc.msg == "" && err != nil:
				t.Fatalf("Check = %v, want it accepted", err)
			case tc.msg == "":
				return
			case err == nil || !strings.Contains(err.Error(), tc.msg):
				t.Fatalf("Check = %v, want a refusal with %q", err, tc.msg)
			}
			if fe, ok := errors.AsType[*FieldError](err); tc.field != "" && (!ok || fe.Field() != tc.field) {
				t.Errorf("Check = %#v, want a refusal of field %q", err, tc.field)
			}
		})
	}
}

// TestNamesRefuseUnknown checks a plan's references against the names a
// real NetBox gives: an unknown site and tenant are refused, known ones
// and the statuses NetBox offers resolve.
func TestNamesRefuseUnknown(t *testing.T) {
	e := realEnv(t, nil, false)
	st, err := e.c.Target(scope.Static(owner)).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := st.Names()
	desired := []resource.Object{
		&resource.VLANGroup{M: meta(), Name: "known", Location: "DC-A11"},
		&resource.VLANGroup{M: meta(), Name: "unknown", Location: "DC-Z99"},
		&resource.VLAN{M: meta(), Group: "known", VID: 1, Name: "a", Status: "Active", Tenant: "acme"},
		&resource.VLAN{M: meta(), Group: "known", VID: 2, Name: "b", Status: "Reserved", Tenant: "nobody"},
	}
	p := plan.Make(desired, nil, plan.DefaultPolicy(owner))
	var got []string
	for _, pr := range reconcile.References(p, desired, nil, names, "NetBox") {
		got = append(got, pr.Key.String()+" "+pr.Field)
	}
	want := []string{"vlan_group unknown location", "vlan known/2 tenant"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("References = %q, want %q", got, want)
	}
}
