package emulator

import "slices"

// contentTypeOrder is the order in which Nautobot's migrations create the
// content types the emulator knows (their ids ascending), which is the
// order content_types lists come in, whatever order they were written in.
var contentTypeOrder = []string{
	"circuits.circuit", "dcim.device", ctIPAddress, ctPrefix, ctVLAN, "virtualization.virtualmachine",
	ctCustomField, "dcim.interface", ctLocation, ctRole, ctLocationType, ctTag, ctStatus,
	ctVLANGroup, ctNamespace, ctPrefixLoc, ctTenant, ctASN,
}

// sortContentTypes puts cts in Nautobot's order.
func sortContentTypes(cts []string) {
	rank := func(ct string) int {
		if i := slices.Index(contentTypeOrder, ct); i >= 0 {
			return i
		}
		return len(contentTypeOrder)
	}
	slices.SortStableFunc(cts, func(a, b string) int { return rank(a) - rank(b) })
}

// stockStatus is a status as Nautobot ships it, limited to the content
// types the emulator knows.
type stockStatus struct {
	name string
	cts  []string
}

// stockStatuses are Nautobot's default statuses (and those the BGP app
// adds) for the content types the emulator knows. Namespaces and VLAN
// groups have no status.
func stockStatuses(bgp bool) []stockStatus {
	all := []stockStatus{
		{"Active", []string{"circuits.circuit", "dcim.device", ctIPAddress, ctPrefix, ctVLAN, "virtualization.virtualmachine", "dcim.interface", ctLocation, ctASN}},
		{"Available", []string{ctASN}},
		{"Decommissioned", []string{"circuits.circuit"}},
		{"Decommissioning", []string{"dcim.device", "virtualization.virtualmachine", "dcim.interface", ctLocation}},
		{"Deprecated", []string{ctIPAddress, ctPrefix, ctVLAN}},
		{"Deprovisioning", []string{"circuits.circuit"}},
		{"Failed", []string{"dcim.device", "virtualization.virtualmachine", "dcim.interface"}},
		{"Inventory", []string{"dcim.device"}},
		{"Maintenance", []string{"dcim.interface"}},
		{"Offline", []string{"circuits.circuit", "dcim.device", "virtualization.virtualmachine"}},
		{"Planned", []string{"circuits.circuit", "dcim.device", "virtualization.virtualmachine", "dcim.interface", ctLocation, ctASN}},
		{"Provisioning", []string{"circuits.circuit"}},
		{"Reserved", []string{ctIPAddress, ctPrefix, ctVLAN}},
		{"Retired", []string{ctLocation}},
		{"Staged", []string{"dcim.device", "virtualization.virtualmachine"}},
		{"Staging", []string{ctLocation}},
	}
	if bgp {
		return all
	}
	var out []stockStatus
	for _, s := range all {
		s.cts = slices.DeleteFunc(slices.Clone(s.cts), func(ct string) bool { return ct == ctASN })
		if len(s.cts) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// statusTypes are the content types that have a status, the choices of
// a status's content_types.
func statusTypes(bgp bool) []string {
	out := []string{"circuits.circuit", "dcim.device", ctIPAddress, ctPrefix, ctVLAN, "virtualization.virtualmachine", "dcim.interface", ctLocation}
	if bgp {
		out = append(out, ctASN)
	}
	return out
}

// hasStatus reports whether objects of type ct have a status.
func (s *store) hasStatus(ct string) bool {
	return slices.Contains(statusTypes(s.tables[ctASN] != nil), ct)
}
