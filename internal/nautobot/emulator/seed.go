package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
)

// SeedData is reference data a test or demo needs in Nautobot before
// ipsync runs: the objects Nautobot owns and ipsync only refers to.
type SeedData struct {
	// LocationType is the type given to Locations, created if missing and
	// allowed to hold namespaces, VLAN groups, VLANs and prefixes.
	// Default "Site".
	LocationType string
	Locations    []string
	// Statuses are created in addition to Nautobot's stock ones, or
	// extended, so that VLANs, prefixes, IP addresses and autonomous
	// systems may have them.
	Statuses []string
	Roles    []string
	Tenants  []string
	// Tags may be put on the IPAM objects and, with the BGP app, on
	// autonomous systems, as scripts/nautobot-up.sh seeds them.
	Tags       []string
	Namespaces []string
}

// Seed creates what d lists, skipping what exists, so it can be called
// more than once. The Global namespace and the stock statuses exist from
// the start, as after Nautobot's migrations.
func (h *Handler) Seed(d SeedData) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.st.begin(nil)
	if err := h.seed(d); err != nil {
		h.st.rollback()
		return err
	}
	h.st.commit()
	return nil
}

func (h *Handler) seed(d SeedData) error {
	h.st.globalNamespace()
	for _, st := range stockStatuses(h.cfg.bgp) {
		if err := h.ensure(ctStatus, st.name, map[string]any{"name": st.name, "content_types": st.cts}); err != nil {
			return err
		}
	}
	extra := []string{ctIPAddress, ctPrefix, ctVLAN}
	if h.cfg.bgp {
		extra = append(extra, ctASN)
	}
	for _, name := range d.Statuses {
		if err := h.ensure(ctStatus, name, map[string]any{"name": name, "content_types": extra}); err != nil {
			return err
		}
		h.st.allow(ctStatus, name, extra)
	}
	for _, name := range d.Roles {
		if err := h.ensure(ctRole, name, map[string]any{"name": name, "content_types": ipamTypes()}); err != nil {
			return err
		}
	}
	for _, name := range d.Tenants {
		if err := h.ensure(ctTenant, name, map[string]any{"name": name}); err != nil {
			return err
		}
	}
	tagTypes := ipamTypes()
	if h.cfg.bgp {
		tagTypes = append(tagTypes, ctASN)
	}
	for _, name := range d.Tags {
		if err := h.ensure(ctTag, name, map[string]any{"name": name, "content_types": tagTypes}); err != nil {
			return err
		}
	}
	for _, name := range d.Namespaces {
		if err := h.ensure(ctNamespace, name, map[string]any{"name": name}); err != nil {
			return err
		}
	}
	if len(d.Locations) > 0 {
		lt := d.LocationType
		if lt == "" {
			lt = "Site"
		}
		types := append(ipamTypes(), "dcim.device")
		if err := h.ensure(ctLocationType, lt, map[string]any{"name": lt, "content_types": types, "nestable": true}); err != nil {
			return err
		}
		for _, name := range d.Locations {
			body := map[string]any{"name": name, "location_type": map[string]any{"name": lt}, "status": map[string]any{"name": "Active"}}
			if err := h.ensure(ctLocation, name, body); err != nil {
				return err
			}
		}
	}
	return nil
}

// ensure creates an object of type ct through the same validation as
// the API, unless one with that name exists.
func (h *Handler) ensure(ct, name string, fields map[string]any) error {
	t := h.st.tables[ct]
	if h.st.byName(ct, name) != nil {
		return nil
	}
	// Round-trip through JSON so values have the types a request's have.
	raw, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	q := &request{r: httptest.NewRequest(http.MethodPost, "/", nil)}
	q.version, _ = parseVersion(h.cfg.version)
	r, e := h.validateNew(t, v, q)
	if len(e) == 0 {
		e = h.save(t, r, nil)
	}
	if len(e) > 0 {
		msg, _ := json.Marshal(e)
		return fmt.Errorf("seed %s %q: %s", ct, name, msg)
	}
	return nil
}

// Objects returns every stored object of a kind, named by object type
// ("ipam.prefix") or endpoint ("ipam/prefixes"), as the API renders it at
// depth 0 with many-to-many fields included; for assertions.
func (h *Handler) Objects(kind string) []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.st.tables[kind]
	if t == nil {
		t = h.tableAt(strings.Trim(kind, "/"))
	}
	if t == nil {
		return nil
	}
	out := make([]map[string]any, 0, len(t.byID))
	for _, r := range h.st.sorted(t) {
		e := &encoder{s: h.st, base: "http://nautobot.invalid"}
		e.record(r)
		var m map[string]any
		if err := json.Unmarshal(e.w.b, &m); err != nil {
			panic(fmt.Sprintf("emulator: rendered invalid JSON for %s: %v", kind, err))
		}
		out = append(out, m)
	}
	return out
}

// Count is how many objects of a kind are stored.
func (h *Handler) Count(kind string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.st.tables[kind]
	if t == nil {
		t = h.tableAt(strings.Trim(kind, "/"))
	}
	if t == nil {
		return 0
	}
	return len(t.byID)
}

// allow adds content types to the object of type ct named name.
func (s *store) allow(ct, name string, cts []string) {
	r := s.byName(ct, name)
	if r == nil {
		return
	}
	next := r.clone()
	for _, c := range cts {
		if !slices.Contains(next.contentTypes, c) {
			next.contentTypes = append(next.contentTypes, c)
		}
	}
	sortContentTypes(next.contentTypes)
	s.replace(r, next)
}
