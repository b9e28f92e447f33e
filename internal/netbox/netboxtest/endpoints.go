package netboxtest

// endpoint is the list path of an object type ("ipam.vlan"), as NetBox
// names its models in object_types.
func endpoint(kind string) (string, bool) {
	p, ok := map[string]string{
		"ipam.vrf":                    "/api/ipam/vrfs/",
		"ipam.vlangroup":              "/api/ipam/vlan-groups/",
		"ipam.vlan":                   "/api/ipam/vlans/",
		"ipam.prefix":                 "/api/ipam/prefixes/",
		"ipam.iprange":                "/api/ipam/ip-ranges/",
		"ipam.ipaddress":              "/api/ipam/ip-addresses/",
		"ipam.aggregate":              "/api/ipam/aggregates/",
		"ipam.asn":                    "/api/ipam/asns/",
		"ipam.asnrange":               "/api/ipam/asn-ranges/",
		"ipam.rir":                    "/api/ipam/rirs/",
		"ipam.role":                   "/api/ipam/roles/",
		"extras.customfield":          "/api/extras/custom-fields/",
		"extras.customfieldchoiceset": "/api/extras/custom-field-choice-sets/",
		"extras.tag":                  "/api/extras/tags/",
		"tenancy.tenant":              "/api/tenancy/tenants/",
		"dcim.site":                   "/api/dcim/sites/",
		"dcim.location":               "/api/dcim/locations/",
		"core.objectchange":           "/api/core/object-changes/",
		"users.token":                 "/api/users/tokens/",
	}[kind]
	return p, ok
}
