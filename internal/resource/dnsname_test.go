package resource

import (
	"net/netip"
	"testing"
)

func TestLowerDNSName(t *testing.T) {
	ip := func(name string) *IPAddress {
		return &IPAddress{Namespace: "a11", Address: netip.MustParsePrefix("10.0.0.1/24"), DNSName: name}
	}
	upper := ip("GW-12.A11.Example.NET")
	lower := ip("gw-12.a11.example.net")
	vlan := &VLAN{Group: "g", VID: 100, Name: "UPPER"}
	tests := []struct {
		name string
		in   Object
		want string // the DNS name of the result; "" for a VLAN
		same bool   // the very object given back
	}{
		{"capitals", upper, "gw-12.a11.example.net", false},
		{"lower case already", lower, "gw-12.a11.example.net", true},
		{"no name", ip(""), "", true},
		{"not an IP address", vlan, "", true},
	}
	for _, tt := range tests {
		got := LowerDNSName(tt.in)
		if (got == tt.in) != tt.same {
			t.Errorf("%s: same object = %v, want %v", tt.name, got == tt.in, tt.same)
		}
		if a, ok := got.(*IPAddress); ok && a.DNSName != tt.want {
			t.Errorf("%s: DNS name %q, want %q", tt.name, a.DNSName, tt.want)
		}
	}
	if upper.DNSName != "GW-12.A11.Example.NET" {
		t.Errorf("LowerDNSName changed the object it was given: %q", upper.DNSName)
	}
}
