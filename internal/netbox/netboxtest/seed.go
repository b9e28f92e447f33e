package netboxtest

// SeedData names what scripts/netbox-up.sh creates and NetBox owns.
type SeedData struct {
	Sites, Roles, Tenants, Tags []string
	RIR                         string
}

// Seed is what every server is given by scripts/netbox-up.sh: ipsync's
// tests refer to it, and the harness never deletes it.
func Seed() SeedData {
	return SeedData{
		Sites:   []string{"DC-A11", "DC-B22", "a11", "a12"},
		Roles:   []string{"provisioning", "storage", "oob", "loopback", "tenant-net"},
		Tenants: []string{"platform", "netops", "acme"},
		Tags:    []string{"routed", "pxe", "blue", "red"},
		RIR:     "private",
	}
}
