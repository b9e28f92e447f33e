package emulator

import (
	"strconv"
	"strings"
)

// contentType is a row of Django's content type table, as
// /api/extras/content-types/ lists it.
type contentType struct {
	id       int
	appLabel string
	model    string
	verbose  string // the model's verbose name
}

func (c contentType) name() string { return c.appLabel + "." + c.model }

// appNames are the verbose names 3.x gives apps in a content type's
// display; 2.4 shows the app label.
var appNames = map[string]string{
	"circuits": "Circuits", "contenttypes": "Content Types", "dcim": "DCIM", "extras": "Extras", "ipam": "IPAM",
	"nautobot_bgp_models": "BGP Models", "tenancy": "Tenancy", "virtualization": "Virtualization",
}

// display is the content type as Nautobot shows it: "IPAM | VLAN" on 3.x,
// "ipam | VLAN" on 2.4.
func (c contentType) display(line3 bool) string {
	app := c.appLabel
	if line3 {
		app = appNames[app]
	}
	return app + " | " + c.verbose
}

// naturalSlug is the content type's natural_slug: the app label slugified
// (underscores become dashes), the model and the id.
func (c contentType) naturalSlug() string {
	return strings.ReplaceAll(c.appLabel, "_", "-") + "_" + c.model + "_" + strconv.Itoa(c.id)
}

// catalog is the content types the emulator knows, with the ids the
// migrations of each line give them (read from 3.2.7 and 2.4.44; the ids
// of the first types are equal on both), ordered as the API lists them:
// by app label, then model.
func catalog(line3, bgp bool) []contentType {
	pick := func(id3, id24 int) int {
		if line3 {
			return id3
		}
		return id24
	}
	cts := []contentType{
		{pick(1, 1), "circuits", "circuit", "circuit"},
		{pick(46, 36), "contenttypes", "contenttype", "content type"},
		{pick(3, 3), "dcim", "device", "device"},
		{pick(13, 13), "dcim", "interface", "interface"},
		{pick(14, 14), "dcim", "location", "location"},
		{pick(106, 91), "dcim", "locationtype", "location type"},
		{pick(10, 10), "extras", "customfield", "custom field"},
		{pick(132, 124), "extras", "objectchange", "object change"},
		{pick(16, 16), "extras", "role", "role"},
		{pick(130, 122), "extras", "status", "status"},
		{pick(127, 119), "extras", "tag", "tag"},
		{pick(6, 6), "ipam", "ipaddress", "IP address"},
		{pick(167, 108), "ipam", "namespace", "namespace"},
		{pick(7, 7), "ipam", "prefix", "prefix"},
		{pick(169, 110), "ipam", "prefixlocationassignment", "prefix location assignment"},
		{pick(8, 8), "ipam", "vlan", "VLAN"},
		{pick(162, 103), "ipam", "vlangroup", "VLAN group"},
		{pick(201, 170), "nautobot_bgp_models", "autonomoussystem", "Autonomous system"},
		{pick(177, 153), "tenancy", "tenant", "tenant"},
		{pick(9, 9), "virtualization", "virtualmachine", "virtual machine"},
	}
	if bgp {
		return cts
	}
	out := cts[:0:0]
	for _, c := range cts {
		if c.appLabel != "nautobot_bgp_models" {
			out = append(out, c)
		}
	}
	return out
}

// contentType is the catalog's entry for ct.
func (s *store) contentType(ct string) contentType {
	for _, c := range s.types {
		if c.name() == ct {
			return c
		}
	}
	app, model, _ := strings.Cut(ct, ".")
	return contentType{appLabel: app, model: model, verbose: model}
}

// contentTypeByID is the catalog's entry with id v.
func (s *store) contentTypeByID(v string) (contentType, bool) {
	for _, c := range s.types {
		if strconv.Itoa(c.id) == v {
			return c, true
		}
	}
	return contentType{}, false
}
