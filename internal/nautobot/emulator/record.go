package emulator

import (
	"net/netip"
	"time"
)

// record is one stored object of any kind. One wide struct serves every
// kind, so the store, its indexes and the undo log handle all kinds alike;
// each kind uses the fields its model has.
type record struct {
	ct      string // object type, e.g. "ipam.prefix"
	id      string
	created time.Time
	updated time.Time

	name        string // also a custom field's key
	label       string
	description string
	color       string
	typ         string // prefix, IP address and custom field type
	filterLogic string
	dnsName     string
	vrange      string // VLAN group range, normalized
	rangeSent   string // the range as the last write sent it, which its answer echoes
	// modelUnique: a partial update without every field of a unique set,
	// which DRF's validator then skips, so the model's check reports a clash.
	modelUnique bool
	vid         int
	asn         int64
	weight      int
	required    bool
	nestable    bool
	cfDefault   any
	net         netip.Prefix // a prefix's network, an IP address with its mask

	// Related objects, by id.
	status, role, tenant, location, locationType string
	parent                                       string // parent prefix, location or location type
	namespace                                    string // a prefix's namespace; an IP's is its parent's, kept here too
	group                                        string // a VLAN's group
	vlan                                         string // a prefix's VLAN
	prefix                                       string // a location assignment's prefix

	tags         []string
	locations    []string // prefixes and VLANs: their location assignments
	contentTypes []string
	cf           map[string]any

	// Write-only input that takes effect after the record is stored.
	setLocation  bool
	newLocation  string
	setNamespace bool
	newNamespace string
}

// clone copies r deeply enough that changing the copy's slices and maps
// leaves r alone.
func (r *record) clone() *record {
	c := *r
	c.tags = append([]string(nil), r.tags...)
	c.locations = append([]string(nil), r.locations...)
	c.contentTypes = append([]string(nil), r.contentTypes...)
	if r.cf != nil {
		c.cf = make(map[string]any, len(r.cf))
		for k, v := range r.cf {
			c.cf[k] = v
		}
	}
	return &c
}
