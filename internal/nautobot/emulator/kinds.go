package emulator

// Object types, as Nautobot names content types.
const (
	ctNamespace     = "ipam.namespace"
	ctVLANGroup     = "ipam.vlangroup"
	ctVLAN          = "ipam.vlan"
	ctPrefix        = "ipam.prefix"
	ctIPAddress     = "ipam.ipaddress"
	ctPrefixLoc     = "ipam.prefixlocationassignment"
	ctLocation      = "dcim.location"
	ctLocationType  = "dcim.locationtype"
	ctStatus        = "extras.status"
	ctRole          = "extras.role"
	ctTag           = "extras.tag"
	ctCustomField   = "extras.customfield"
	ctTenant        = "tenancy.tenant"
	ctASN           = "nautobot_bgp_models.autonomoussystem"
	globalNamespace = "Global"
)

// kindDef is what the server knows about one endpoint: where it lives, how
// its model is named in messages, and the hooks that decode, check, encode,
// filter and order its records.
type kindDef struct {
	ct     string // object type
	path   string // below /api/, e.g. "ipam/prefixes"
	model  string // class name, in 404 bodies
	label  string // verbose name as Django capitalizes it in messages
	plugin bool   // served only with the BGP plugin installed

	// uniqueField is the field that must be unique by itself (name, key or
	// asn), with DRF's message for a duplicate; empty when none is.
	uniqueField string
	uniqueMsg   string

	decode func(d *decoder, r *record)
	check  func(s *store, r, old *record) errorDict
	// saveCheck is what the model checks while saving, after
	// validation: its errors fail the request with a 500.
	saveCheck func(s *store, r, old *record) errorDict
	encode    func(e *encoder, r *record)
	display   func(s *store, r *record) string
	less      func(s *store, a, b *record) bool
	// after runs once r is stored (old is nil on create), for side effects
	// on other records such as reparenting.
	after   func(s *store, r, old *record) errorDict
	filters map[string]filterFunc
}

// kindDefs lists every endpoint the emulator serves.
func kindDefs() []*kindDef {
	return []*kindDef{
		namespaceKind(), vlanGroupKind(), vlanKind(), prefixKind(), ipAddressKind(), prefixLocationKind(),
		locationKind(), locationTypeKind(), statusKind(), roleKind(), tagKind(), customFieldKind(), tenantKind(),
		asnKind(),
	}
}

// ipamTypes are the content types ipsync writes; the defaults the server
// starts with (statuses, the Global namespace) apply to them.
func ipamTypes() []string {
	return []string{ctNamespace, ctVLANGroup, ctVLAN, ctPrefix, ctIPAddress}
}
