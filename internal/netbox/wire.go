package netbox

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
)

// Wire types: the parts of NetBox's representations ipsync reads. They
// never leave this package.

// newDecoder decodes a server's answers. The related objects that every
// object of a page repeats, with links and names of which ipsync reads
// the id alone, are decoded once and shared.
func newDecoder() *httpapi.Decoder {
	return httpapi.NewDecoder(httpapi.Share[ref](), httpapi.Share[choice]())
}

// ref is a related object; only its id is used.
type ref struct {
	ID int `json:"id"`
}

func refID(r *ref) int {
	if r == nil {
		return 0
	}
	return r.ID
}

// choice is a choice field as NetBox 4.7 answers it.
type choice struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

type base struct {
	ID           int                        `json:"id"`
	LastUpdated  string                     `json:"last_updated"`
	Tags         []ref                      `json:"tags"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
}

func (b *base) ObjectID() int { return b.ID }

// baseFields are the fields of base, for ?fields=.
const baseFields = "id,last_updated,tags,custom_fields"

// named is a site, location, role, tenant, tag or RIR.
type named struct {
	ID          int      `json:"id"`
	Name        string   `json:"name"`
	Slug        string   `json:"slug"`
	ObjectTypes []string `json:"object_types"` // tags
}

func (n *named) ObjectID() int { return n.ID }

type wireVRF struct {
	base
	Name        string `json:"name"`
	Description string `json:"description"`
}

func (w *wireVRF) NameOf() (int, string) { return w.ID, w.Name }

type wireVLANGroup struct {
	base
	Name        string   `json:"name"`
	Slug        string   `json:"slug"`
	Description string   `json:"description"`
	ScopeType   *string  `json:"scope_type"`
	ScopeID     *int     `json:"scope_id"`
	VIDRanges   [][2]int `json:"vid_ranges"`
}

func (w *wireVLANGroup) NameOf() (int, string) { return w.ID, w.Name }

type wireVLAN struct {
	base
	Group       *ref    `json:"group"`
	VID         uint16  `json:"vid"`
	Name        string  `json:"name"`
	Status      *choice `json:"status"`
	Role        *ref    `json:"role"`
	Tenant      *ref    `json:"tenant"`
	Description string  `json:"description"`
}

// VLANOf is the VLAN's id and what its key is made of.
func (v *wireVLAN) VLANOf() (id, group int, vid uint16) { return v.ID, refID(v.Group), v.VID }

type wirePrefix struct {
	base
	Prefix      string  `json:"prefix"`
	VRF         *ref    `json:"vrf"`
	ScopeType   *string `json:"scope_type"`
	ScopeID     *int    `json:"scope_id"`
	VLAN        *ref    `json:"vlan"`
	Status      *choice `json:"status"`
	IsPool      bool    `json:"is_pool"`
	Role        *ref    `json:"role"`
	Tenant      *ref    `json:"tenant"`
	Description string  `json:"description"`
}

type wireIP struct {
	base
	Address     string  `json:"address"`
	VRF         *ref    `json:"vrf"`
	Status      *choice `json:"status"`
	Role        *choice `json:"role"`
	Tenant      *ref    `json:"tenant"`
	DNSName     string  `json:"dns_name"`
	Description string  `json:"description"`
}

type wireASN struct {
	base
	ASN         uint32 `json:"asn"`
	RIR         *ref   `json:"rir"`
	Tenant      *ref   `json:"tenant"`
	Description string `json:"description"`
}

// wireCustomField is a custom field definition.
type wireCustomField struct {
	ID          int      `json:"id"`
	Name        string   `json:"name"`
	Type        *choice  `json:"type"`
	FilterLogic *choice  `json:"filter_logic"`
	ObjectTypes []string `json:"object_types"`
}

func (f *wireCustomField) ObjectID() int { return f.ID }

// endpoint is where the objects of one kind live, and the fields a read
// asks for: only those ipsync compares.
type endpoint struct {
	path   string // e.g. "/api/ipam/prefixes/"
	ot     string // object type, e.g. "ipam.prefix"
	fields string
}

func endpointOf(k resource.Kind) (endpoint, bool) {
	f := func(s ...string) string { return baseFields + "," + strings.Join(s, ",") }
	switch k {
	case resource.KindNamespace:
		return endpoint{"/api/ipam/vrfs/", "ipam.vrf", f("name", "description")}, true
	case resource.KindVLANGroup:
		return endpoint{"/api/ipam/vlan-groups/", "ipam.vlangroup", f("name", "slug", "description", "scope_type", "scope_id", "vid_ranges")}, true
	case resource.KindVLAN:
		return endpoint{"/api/ipam/vlans/", "ipam.vlan", f("group", "vid", "name", "status", "role", "tenant", "description")}, true
	case resource.KindPrefix:
		return endpoint{"/api/ipam/prefixes/", "ipam.prefix", f("prefix", "vrf", "scope_type", "scope_id", "vlan", "status", "is_pool", "role", "tenant", "description")}, true
	case resource.KindIPAddress:
		return endpoint{"/api/ipam/ip-addresses/", "ipam.ipaddress", f("address", "vrf", "status", "role", "tenant", "dns_name", "description")}, true
	case resource.KindASN:
		return endpoint{"/api/ipam/asns/", "ipam.asn", f("asn", "rir", "tenant", "description")}, true
	}
	return endpoint{}, false
}

// Paths of the kinds NetBox owns and of other endpoints ipsync uses.
const (
	pathSites        = "/api/dcim/sites/"
	pathLocations    = "/api/dcim/locations/"
	pathRoles        = "/api/ipam/roles/"
	pathTenants      = "/api/tenancy/tenants/"
	pathTags         = "/api/extras/tags/"
	pathRIRs         = "/api/ipam/rirs/"
	pathCustomFields = "/api/extras/custom-fields/"
)

func itoa(i int) string { return strconv.Itoa(i) }
