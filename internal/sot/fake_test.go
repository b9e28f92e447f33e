package sot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// world is what a fake server holds, as wire objects by id. Its reads
// honour the filters the engine adds: ids, and the stamp.
type world struct {
	mu       sync.Mutex
	ns       map[string]wireNamed
	groups   map[string]wireNamed
	vlans    map[string]wireVLAN
	prefixes map[string]wirePrefix
	// fail makes a step fail: "begin", "named", "kinds", "resolve",
	// "vlankeys", "objects", "restore", "settle", "apply".
	fail map[string]bool

	begins    int
	keysAsked [][]string
	queries   []url.Values // of the VLAN and prefix reads
}

type wireNamed struct {
	ID, Name, Location string
	Owner              resource.Owner
	Stamp              time.Time
}

type wireVLAN struct {
	ID, Group string // the group's id
	VID       uint16
	Owner     resource.Owner
	Stamp     time.Time
}

type wirePrefix struct {
	ID, NS, VLAN, Prefix string // ids of the namespace and VLAN
	Owner                resource.Owner
	Stamp                time.Time
}

var errFake = errors.New("fake server failed")

func (w *world) failing(step string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail[step] {
		return fmt.Errorf("%s: %w", step, errFake)
	}
	return nil
}

// selected says whether an object is one that extra (a reread's ids, a
// stamp) selects.
func selected(id string, stamp time.Time, extra url.Values) bool {
	if want, ok := extra["id"]; ok && !slices.Contains(want, id) {
		return false
	}
	if s := extra.Get(changelog.StampFilter); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil || stamp.Before(t) {
			return false
		}
	}
	return true
}

// fakeReader is a dialect's read of a scope over a world.
type fakeReader struct {
	w      *world
	sc     scope.Scope
	want   []resource.Kind
	names  Known[string]
	learnt *Learnt[string]

	nss, groups []wireNamed
	vlans       []wireVLAN
	prefixes    []wirePrefix
	resolved    int
}

var _ Reader[string] = (*fakeReader)(nil)

func newNames() Known[string] {
	return Known[string]{Namespaces: map[string]string{}, Groups: map[string]string{}, VLANs: map[string]string{}}
}

func (r *fakeReader) Want() []resource.Kind { return r.want }

func (r *fakeReader) named(all func() map[string]wireNamed) func(context.Context, url.Values) ([]wireNamed, error) {
	return func(_ context.Context, extra url.Values) ([]wireNamed, error) {
		r.w.mu.Lock()
		defer r.w.mu.Unlock()
		var out []wireNamed
		for _, id := range slices.Sorted(maps.Keys(all())) {
			if o := all()[id]; selected(id, o.Stamp, extra) {
				out = append(out, o)
			}
		}
		return out, nil
	}
}

func (r *fakeReader) SweepNamed(ctx context.Context, sel changelog.Select, kinds []resource.Kind) error {
	if err := r.w.failing("named"); err != nil {
		return err
	}
	return Sweep(ctx, 2, kinds, sel,
		Into(resource.KindNamespace, &r.nss, 2, r.named(func() map[string]wireNamed { return r.w.ns })),
		Into(resource.KindVLANGroup, &r.groups, 2, r.named(func() map[string]wireNamed { return r.w.groups })))
}

// LearnNamed replaces the names, as the dialects do: one gone is no
// longer known.
func (r *fakeReader) LearnNamed() {
	r.names.Namespaces, r.names.Groups = map[string]string{}, map[string]string{}
	for _, o := range r.nss {
		r.names.Namespaces[o.ID] = o.Name
	}
	for _, o := range r.groups {
		r.names.Groups[o.ID] = o.Name
	}
}

// list reads the objects of all that q matches: q names groups or
// namespaces by name, the owner, ids and a stamp.
func list[T any](w *world, all map[string]T, q url.Values, by func(T) (id, in string, owner resource.Owner, stamp time.Time)) []T {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queries = append(w.queries, q)
	var out []T
	for _, id := range slices.Sorted(maps.Keys(all)) {
		id, in, owner, stamp := by(all[id])
		if in != "" && q.Has("in") && !slices.Contains(q["in"], in) {
			continue
		}
		if q.Has("owner") && q.Get("owner") != string(owner) {
			continue
		}
		if selected(id, stamp, q) {
			out = append(out, all[id])
		}
	}
	return out
}

func (r *fakeReader) SweepKinds(ctx context.Context, kinds []resource.Kind, sel changelog.Select) error {
	if err := r.w.failing("kinds"); err != nil {
		return err
	}
	var owned url.Values
	if r.sc.Owner != "" {
		owned = url.Values{"owner": {string(r.sc.Owner)}}
	}
	vlans := Scoped[wireVLAN]{
		Read: func(q url.Values) ([]wireVLAN, error) {
			return list(r.w, r.w.vlans, q, func(v wireVLAN) (string, string, resource.Owner, time.Time) {
				return v.ID, r.w.groups[v.Group].Name, v.Owner, v.Stamp
			}), nil
		},
		Filter: url.Values{}, Narrowed: len(r.sc.VLANGroups) > 0, Owned: owned,
		ID: func(v *wireVLAN) string { return v.ID }, Owns: func(v *wireVLAN) bool { return v.Owner == r.sc.Owner },
	}
	if vlans.Narrowed {
		vlans.Filter.Set("in", r.sc.VLANGroups[0])
	}
	prefixes := Scoped[wirePrefix]{
		Read: func(q url.Values) ([]wirePrefix, error) {
			return list(r.w, r.w.prefixes, q, func(p wirePrefix) (string, string, resource.Owner, time.Time) {
				return p.ID, r.w.ns[p.NS].Name, p.Owner, p.Stamp
			}), nil
		},
		Filter: url.Values{}, Narrowed: len(r.sc.Namespaces) > 0, Owned: owned,
		ID: func(p *wirePrefix) string { return p.ID }, Owns: func(p *wirePrefix) bool { return p.Owner == r.sc.Owner },
	}
	if prefixes.Narrowed {
		prefixes.Filter["in"] = r.sc.Namespaces
	}
	return Sweep(ctx, 2, kinds, sel,
		Into(resource.KindVLAN, &r.vlans, 2, func(_ context.Context, extra url.Values) ([]wireVLAN, error) { return vlans.Sweep(extra) }),
		Into(resource.KindPrefix, &r.prefixes, 2, func(_ context.Context, extra url.Values) ([]wirePrefix, error) {
			return prefixes.Sweep(extra)
		}))
}

func (r *fakeReader) SweptVLANs() (map[string]string, []string) {
	keys := map[string]string{}
	for _, v := range r.vlans {
		keys[v.ID] = resource.VLANKey(r.names.Groups[v.Group], v.VID)
	}
	var named []string
	for _, p := range r.prefixes {
		if p.VLAN != "" {
			named = append(named, p.VLAN)
		}
	}
	return keys, named
}

func (r *fakeReader) Resolve(context.Context) error {
	r.resolved++
	return r.w.failing("resolve")
}

func (r *fakeReader) Learn(k resource.Key, id string) { r.learnt.Learn(k, id) }

func (r *fakeReader) Objects() ([]resource.Object, error) {
	if err := r.w.failing("objects"); err != nil {
		return nil, err
	}
	named := func(k resource.Kind) func(wireNamed) resource.Object {
		return func(o wireNamed) resource.Object {
			m := resource.Meta{ID: o.ID, Owner: o.Owner}
			if k == resource.KindNamespace {
				return &resource.Namespace{M: m, Name: o.Name, Location: o.Location}
			}
			return &resource.VLANGroup{M: m, Name: o.Name, Location: o.Location}
		}
	}
	return Objects(r.sc, r.want, len(r.nss)+len(r.groups)+len(r.vlans)+len(r.prefixes),
		MapEach(r.nss, named(resource.KindNamespace)),
		MapEach(r.groups, named(resource.KindVLANGroup)),
		MapEach(r.vlans, func(v wireVLAN) *resource.VLAN {
			return &resource.VLAN{M: resource.Meta{ID: v.ID, Owner: v.Owner}, Group: r.names.Groups[v.Group], VID: v.VID}
		}),
		Map(r.prefixes, func(p wirePrefix) (*resource.Prefix, error) {
			pfx, err := netip.ParsePrefix(p.Prefix)
			if err != nil {
				return nil, fmt.Errorf("prefix %s: %w", p.ID, err)
			}
			return &resource.Prefix{M: resource.Meta{ID: p.ID, Owner: p.Owner}, Namespace: r.names.Namespaces[p.NS],
				Prefix: pfx, VLAN: r.names.VLANs[p.VLAN]}, nil
		}))
}

func (r *fakeReader) Names() Known[string] { return r.names }

func (r *fakeReader) VLANKeys(_ context.Context, ids []string) (map[string]string, error) {
	if err := r.w.failing("vlankeys"); err != nil {
		return nil, err
	}
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.w.keysAsked = append(r.w.keysAsked, slices.Clone(ids))
	out := map[string]string{}
	for _, id := range ids {
		if v, ok := r.w.vlans[id]; ok {
			out[id] = resource.VLANKey(r.w.groups[v.Group].Name, v.VID)
		}
	}
	return out, nil
}

func (r *fakeReader) Again(want []resource.Kind, fork bool) Reader[string] {
	names := r.names
	if fork {
		names = Known[string]{Namespaces: maps.Clone(names.Namespaces), Groups: maps.Clone(names.Groups), VLANs: maps.Clone(names.VLANs)}
	}
	return &fakeReader{w: r.w, sc: r.sc, want: want, names: names, learnt: r.learnt}
}

func (r *fakeReader) ParseID(s string) (string, bool) { return s, s != "" }

func (r *fakeReader) RefNames() map[resource.Kind]map[string]bool {
	out := map[resource.Kind]map[string]bool{resource.KindNamespace: {}, resource.KindVLANGroup: {}}
	for _, n := range r.names.Namespaces {
		out[resource.KindNamespace][n] = true
	}
	for _, n := range r.names.Groups {
		out[resource.KindVLANGroup][n] = true
	}
	return out
}

func (r *fakeReader) Settle(context.Context, changelog.Changes) error { return r.w.failing("settle") }

func (r *fakeReader) Save() ([]byte, error) { return json.Marshal(r.names) }

// fakeDialect is a server's client over a world.
type fakeDialect struct {
	w      *world
	learnt Learnt[string]
	api    *httpapi.Client
}

var _ Dialect[string, *fakeReader] = (*fakeDialect)(nil)

func (d *fakeDialect) Server() string    { return "Fakebox" }
func (d *fakeDialect) Namespace() string { return "VRF" }

func (d *fakeDialect) Begin(_ context.Context, sc scope.Scope, kinds []resource.Kind) (*fakeReader, error) {
	d.w.mu.Lock()
	d.w.begins++
	d.w.mu.Unlock()
	if err := d.w.failing("begin"); err != nil {
		return nil, err
	}
	return &fakeReader{w: d.w, sc: sc, want: kinds, names: newNames(), learnt: &d.learnt}, nil
}

func (d *fakeDialect) Restore(sc scope.Scope, kinds []resource.Kind, saved []byte, _ []resource.Object) (*fakeReader, error) {
	if err := d.w.failing("restore"); err != nil {
		return nil, err
	}
	names := newNames()
	if err := json.Unmarshal(saved, &names); err != nil {
		return nil, err
	}
	return &fakeReader{w: d.w, sc: sc, want: kinds, names: names, learnt: &d.learnt}, nil
}

func (d *fakeDialect) Check(r *fakeReader, o resource.Object) error {
	if _, ok := o.(*resource.ASN); ok {
		return FieldProblem("asn", "Fakebox holds no ASNs")
	}
	if r == nil {
		return errors.New("checked without a read")
	}
	return nil
}

func (d *fakeDialect) Write(_ context.Context, r *fakeReader, changes []plan.Change) (bulkwrite.Result, error) {
	if r == nil {
		return bulkwrite.Result{}, errors.New("written without a read")
	}
	return bulkwrite.Result{Written: len(changes)}, d.w.failing("apply")
}

func (d *fakeDialect) AsStored(o resource.Object) resource.Object { return resource.Clone(o) }
func (d *fakeDialect) API() *httpapi.Client                       { return d.api }
