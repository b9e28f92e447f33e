package nautobot

import (
	"encoding/json"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
)

// Wire types: the parts of Nautobot's depth-0 representations ipsync
// reads. They never leave this package.

// newDecoder decodes a server's answers. The related objects that every
// object of a page repeats, with links and names of which ipsync reads
// the id alone, are decoded once and shared.
func newDecoder() *httpapi.Decoder {
	return httpapi.NewDecoder(httpapi.Share[ref](), httpapi.Share[choiceValue]())
}

// ref is a related object at depth 0; only its id is used.
type ref struct {
	ID string `json:"id"`
}

func refID(r *ref) string {
	if r == nil {
		return ""
	}
	return r.ID
}

func (b *base) ObjectID() string            { return b.ID }
func (n *named) ObjectID() string           { return n.ID }
func (a *wireAssignment) ObjectID() string  { return a.ID }
func (f *wireCustomField) ObjectID() string { return f.ID }
func (w *written) ObjectID() string         { return w.ID }

type base struct {
	ID           string                     `json:"id"`
	LastUpdated  string                     `json:"last_updated"`
	Tags         []ref                      `json:"tags"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
}

// named is a location, location type, status, role, tenant or tag.
type named struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	ContentTypes []string `json:"content_types"` // location types, statuses, roles, tags
	Parent       *ref     `json:"parent"`        // locations
	LocationType *ref     `json:"location_type"` // locations
}

type wireNamespace struct {
	base
	Name        string `json:"name"`
	Description string `json:"description"`
	Location    *ref   `json:"location"`
}

func (w *wireNamespace) NameOf() (string, string) { return w.ID, w.Name }

type wireVLANGroup struct {
	base
	Name        string `json:"name"`
	Description string `json:"description"`
	Location    *ref   `json:"location"`
	Range       string `json:"range"`
}

func (w *wireVLANGroup) NameOf() (string, string) { return w.ID, w.Name }

type wireVLAN struct {
	base
	VID         uint16 `json:"vid"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Group       *ref   `json:"vlan_group"`
	Status      *ref   `json:"status"`
	Role        *ref   `json:"role"`
	Tenant      *ref   `json:"tenant"`
}

// VLANOf is the VLAN's id and what its key is made of.
func (v *wireVLAN) VLANOf() (id, group string, vid uint16) { return v.ID, refID(v.Group), v.VID }

type choiceValue struct {
	Value string `json:"value"`
}

// value is v's value, "" when there is none.
func (v *choiceValue) value() string {
	if v == nil {
		return ""
	}
	return v.Value
}

type wirePrefix struct {
	base
	Prefix      string       `json:"prefix"`
	Type        *choiceValue `json:"type"`
	Status      *ref         `json:"status"`
	Role        *ref         `json:"role"`
	Namespace   *ref         `json:"namespace"`
	Tenant      *ref         `json:"tenant"`
	VLAN        *ref         `json:"vlan"`
	Description string       `json:"description"`
	// Locations is nil when the server left many-to-many fields out.
	Locations *[]ref `json:"locations"`
}

type wireIP struct {
	base
	Address     string `json:"address"`
	Status      *ref   `json:"status"`
	Role        *ref   `json:"role"`
	Parent      *ref   `json:"parent"`
	Tenant      *ref   `json:"tenant"`
	DNSName     string `json:"dns_name"`
	Description string `json:"description"`
}

type wireASN struct {
	base
	ASN         uint32 `json:"asn"`
	Status      *ref   `json:"status"`
	Description string `json:"description"`
}

// wireAssignment is a prefix location assignment.
type wireAssignment struct {
	ID       string `json:"id"`
	Prefix   *ref   `json:"prefix"`
	Location *ref   `json:"location"`
}

// wireCustomField is a custom field definition.
type wireCustomField struct {
	ID           string       `json:"id"`
	Key          string       `json:"key"`
	Type         *choiceValue `json:"type"`
	FilterLogic  *choiceValue `json:"filter_logic"`
	ContentTypes []string     `json:"content_types"`
}

// wireMarker is a tag or custom field as bootstrap reads it.
type wireMarker struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"` // a tag's
	Key          string       `json:"key"`  // a custom field's
	Type         *choiceValue `json:"type"`
	FilterLogic  *choiceValue `json:"filter_logic"` // a custom field's
	ContentTypes []string     `json:"content_types"`
}

func (m *wireMarker) ObjectID() string { return m.ID }

// written is what a write's answer is checked for.
type written struct {
	ID           string                     `json:"id"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
}

// endpoint is where the objects of one kind live.
type endpoint struct {
	path string // e.g. "/api/ipam/prefixes/"
	ct   string // content type, e.g. "ipam.prefix"
}

func endpointOf(k resource.Kind) (endpoint, bool) {
	switch k {
	case resource.KindNamespace:
		return endpoint{"/api/ipam/namespaces/", "ipam.namespace"}, true
	case resource.KindVLANGroup:
		return endpoint{"/api/ipam/vlan-groups/", "ipam.vlangroup"}, true
	case resource.KindVLAN:
		return endpoint{"/api/ipam/vlans/", "ipam.vlan"}, true
	case resource.KindPrefix:
		return endpoint{"/api/ipam/prefixes/", "ipam.prefix"}, true
	case resource.KindIPAddress:
		return endpoint{"/api/ipam/ip-addresses/", "ipam.ipaddress"}, true
	case resource.KindASN:
		return endpoint{"/api/plugins/bgp/autonomous-systems/", "nautobot_bgp_models.autonomoussystem"}, true
	}
	return endpoint{}, false
}

// Paths of the kinds Nautobot owns and of other endpoints ipsync uses.
const (
	pathLocations     = "/api/dcim/locations/"
	pathLocationTypes = "/api/dcim/location-types/"
	pathStatuses      = "/api/extras/statuses/"
	pathRoles         = "/api/extras/roles/"
	pathTenants       = "/api/tenancy/tenants/"
	pathTags          = "/api/extras/tags/"
	pathCustomFields  = "/api/extras/custom-fields/"
	pathAssignments   = "/api/ipam/prefix-location-assignments/"
)
