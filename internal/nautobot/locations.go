package nautobot

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/google/uuid"

	"github.com/ipsync/ipsync/internal/resource"
)

// syncLocations gives written prefixes their locations beyond the first.
// Since API 2.2 a prefix has several locations, read-only in its own
// representation; the one a create writes goes in the write-only
// "location" field, and every other one is a prefix location
// assignment.
func (a *applier) syncLocations(ctx context.Context, rep *report, method string, done []item) error {
	assign := endpoint{path: pathAssignments, ct: "ipam.prefixlocationassignment"}
	var posts, dels []item
	if method == http.MethodPost {
		for _, it := range done {
			// The first location went in the create's own body.
			locs := resource.NormalizeSet(append([]string(nil), it.Change.Desired.(*resource.Prefix).Locations...))
			for _, l := range locs[min(1, len(locs)):] {
				posts = append(posts, a.assignment(it, l))
			}
		}
	} else {
		changed := map[string]item{}
		var ids []string
		for _, it := range done {
			if slices.ContainsFunc(it.Change.Fields, func(f resource.FieldDiff) bool { return f.Field == "locations" }) {
				changed[it.ID] = it
				ids = append(ids, it.ID)
			}
		}
		if len(ids) == 0 {
			return nil
		}
		s, err := a.c.connect(ctx)
		if err != nil {
			return err
		}
		nets := make(map[string]string, len(ids))
		for _, id := range ids {
			nets[id] = changed[id].Change.Desired.(*resource.Prefix).Prefix.String()
		}
		current, err := a.assignments(ctx, nets, s.version.less(assignmentsByUUID))
		if err != nil {
			return err
		}
		have := map[string][]string{} // prefix id -> location names
		for _, as := range current {
			it := changed[refID(as.Prefix)]
			name := a.r.k.locationName(refID(as.Location))
			want := it.Change.Desired.(*resource.Prefix).Locations
			if slices.Contains(want, name) {
				have[it.ID] = append(have[it.ID], name)
				continue
			}
			dels = append(dels, item{Change: it.Change, ID: as.ID, Body: map[string]any{"id": as.ID}, Aux: true})
		}
		for _, id := range ids {
			it := changed[id]
			for _, l := range resource.NormalizeSet(append([]string(nil), it.Change.Desired.(*resource.Prefix).Locations...)) {
				if !slices.Contains(have[id], l) {
					posts = append(posts, a.assignment(it, l))
				}
			}
		}
	}
	for _, w := range []struct {
		method string
		items  []item
	}{{http.MethodDelete, dels}, {http.MethodPost, posts}} {
		for lo := 0; lo < len(w.items); lo += a.c.cfg.BatchSize {
			if _, err := a.send(ctx, rep, assign, w.method, w.items[lo:min(lo+a.c.cfg.BatchSize, len(w.items))]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *applier) assignment(prefix item, location string) item {
	id := uuid.NewString()
	return item{Change: prefix.Change, ID: id, Aux: true, Body: map[string]any{
		"id": id, "prefix": prefix.ID, "location": a.targetRef(resource.RefLocation, location)}}
}

// assignments reads the location assignments of the prefixes, given as
// id -> prefix. The prefix filter takes ids from Nautobot 2.4.4; before,
// an id matches nothing (and strict filtering does not object), so
// byCIDR filters by the prefixes' networks instead, which matches the
// same network in every namespace, and keeps the prefixes asked for.
func (a *applier) assignments(ctx context.Context, prefixes map[string]string, byCIDR bool) ([]wireAssignment, error) {
	set := make(map[string]bool, len(prefixes))
	for id, net := range prefixes {
		if byCIDR {
			id = net
		}
		set[id] = true
	}
	values := slices.Sorted(maps.Keys(set))
	const chunk = 100
	var out []wireAssignment
	for lo := 0; lo < len(values); lo += chunk {
		got, err := sweep[wireAssignment](ctx, a.c, pathAssignments, url.Values{"prefix": values[lo:min(lo+chunk, len(values))]}, a.t)
		if err != nil {
			return nil, fmt.Errorf("apply: read prefix location assignments: %w", err)
		}
		for _, as := range got {
			if _, ok := prefixes[refID(as.Prefix)]; ok {
				out = append(out, as)
			}
		}
	}
	return out, nil
}
