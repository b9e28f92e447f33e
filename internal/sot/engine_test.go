package sot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

const me = resource.Owner("static:me")

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newWorld is a server with objects in and out of testScope: a namespace
// and a group of another location, the owner's namespace, prefix and VLAN
// outside the scope's names, and a prefix naming a VLAN of a group the
// scope does not read.
func newWorld() *world {
	named := func(id, name, loc string, owner resource.Owner) wireNamed {
		return wireNamed{ID: id, Name: name, Location: loc, Owner: owner, Stamp: t0}
	}
	return &world{
		ns: map[string]wireNamed{"n1": named("n1", "site-a", "A", ""), "n2": named("n2", "site-b", "B", me),
			"n3": named("n3", "global", "", "")},
		groups: map[string]wireNamed{"g1": named("g1", "leaf1", "A", ""), "g2": named("g2", "leaf2", "B", "")},
		vlans: map[string]wireVLAN{
			"v1": {ID: "v1", Group: "g1", VID: 100, Owner: me, Stamp: t0},
			"v2": {ID: "v2", Group: "g1", VID: 200, Owner: "static:other", Stamp: t0},
			"v3": {ID: "v3", Group: "g2", VID: 300, Owner: me, Stamp: t0},
			"v4": {ID: "v4", Group: "g2", VID: 400, Stamp: t0},
		},
		prefixes: map[string]wirePrefix{
			"p1": {ID: "p1", NS: "n1", VLAN: "v1", Prefix: "10.0.0.0/24", Owner: me, Stamp: t0},
			"p2": {ID: "p2", NS: "n1", VLAN: "v4", Prefix: "10.0.1.0/24", Owner: me, Stamp: t0},
			"p3": {ID: "p3", NS: "n2", Prefix: "10.1.0.0/24", Owner: me, Stamp: t0},
			"p4": {ID: "p4", NS: "n3", Prefix: "10.2.0.0/24", Stamp: t0},
		},
		fail: map[string]bool{},
	}
}

var testScope = scope.Scope{Owner: me, Namespaces: []string{"site-a"}, VLANGroups: []string{"leaf1"}, Locations: []string{"A"}}

// keys are objects as "kind name id", sorted.
func keys(objs []resource.Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, fmt.Sprintf("%s %s %s", o.Kind(), o.Key().Name, o.Meta().ID))
	}
	slices.Sort(out)
	return out
}

var wholeRead = []string{
	"namespace site-a n1", "namespace site-b n2",
	"prefix site-a/10.0.0.0/24 p1", "prefix site-a/10.0.1.0/24 p2", "prefix site-b/10.1.0.0/24 p3",
	"vlan leaf1/100 v1", "vlan leaf1/200 v2", "vlan leaf2/300 v3",
	"vlan_group leaf1 g1",
}

func newDialect(w *world) *fakeDialect {
	return &fakeDialect{w: w, api: httpapi.New(httpapi.Config{})}
}

// TestList: a whole read keeps what the scope selects and the owner's
// objects elsewhere, and learns the VLANs its prefixes name from outside
// it, asking the server for those only.
func TestList(t *testing.T) {
	w := newWorld()
	d := newDialect(w)
	objs, r, err := List(bg, d, testScope)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(objs); !slices.Equal(got, wholeRead) {
		t.Errorf("List =\n%q\nwant\n%q", got, wholeRead)
	}
	if want := [][]string{{"v4"}}; fmt.Sprint(w.keysAsked) != fmt.Sprint(want) {
		t.Errorf("VLANKeys asked %v, want %v", w.keysAsked, want)
	}
	for key, want := range map[string]string{"leaf2/400": "v4", "leaf1/100": "v1", "leaf2/300": "v3"} {
		if id, ok := d.learnt.ID(resource.Key{Kind: resource.KindVLAN, Name: key}); id != want || !ok {
			t.Errorf("learnt %s = %q, %v; want %q", key, id, ok, want)
		}
	}
	if n := r.resolved; n != 1 {
		t.Errorf("Resolve called %d times, want 1", n)
	}
	if got := r.Names().Namespaces; len(got) != 3 {
		t.Errorf("names of namespaces = %v, want all three", got)
	}
}

// TestListFails: a read fails whole, naming the server, whichever step
// fails; a scope with a kind no server holds is refused before Begin.
func TestListFails(t *testing.T) {
	for _, step := range []string{"begin", "named", "kinds", "vlankeys", "resolve", "objects"} {
		w := newWorld()
		w.fail[step] = true
		objs, _, err := List(bg, newDialect(w), testScope)
		if !errors.Is(err, errFake) || !strings.Contains(err.Error(), "read fakebox") || objs != nil {
			t.Errorf("List failing at %s = %d objects, %v; want the error, naming fakebox", step, len(objs), err)
		}
	}
	w := newWorld()
	sc := testScope
	sc.Kinds = []resource.Kind{resource.KindVLAN, resource.KindSegmentRange}
	if _, _, err := List(bg, newDialect(w), sc); err == nil || !strings.Contains(err.Error(), "fakebox holds no segment_range") {
		t.Errorf("List of segment ranges = %v, want a refusal naming fakebox", err)
	}
	if w.begins != 0 {
		t.Errorf("Begin called %d times for a refused scope", w.begins)
	}
}

// TestListKinds: a scope naming kinds reads only those.
func TestListKinds(t *testing.T) {
	sc := testScope
	sc.Kinds = []resource.Kind{resource.KindVLAN}
	objs, _, err := List(bg, newDialect(newWorld()), sc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"vlan leaf1/100 v1", "vlan leaf1/200 v2", "vlan leaf2/300 v3"}
	if got := keys(objs); !slices.Equal(got, want) {
		t.Errorf("List of VLANs = %q, want %q", got, want)
	}
}

// whole is a whole read's rereader over w.
func whole(t *testing.T, w *world) rereader[string] {
	t.Helper()
	_, r, err := List(bg, newDialect(w), testScope)
	if err != nil {
		t.Fatal(err)
	}
	return rereader[string]{last: r, namespace: "VRF"}
}

// TestReread: objects read again by id come with the whole read's names;
// a lookup renamed distrusts the log, and a VLAN renumbered or gone is
// said under its old key.
func TestReread(t *testing.T) {
	for _, tc := range []struct {
		name      string
		change    func(w *world)
		ids       map[resource.Kind][]string
		want      []string
		gone      []string
		untrusted string // a word of the reason
		fails     bool
	}{
		{name: "a prefix", ids: map[resource.Kind][]string{resource.KindPrefix: {"p1"}},
			want: []string{"prefix site-a/10.0.0.0/24 p1"}},
		{name: "the owner's prefix outside the scope's namespaces",
			ids:  map[resource.Kind][]string{resource.KindPrefix: {"p1", "p3", "p4"}},
			want: []string{"prefix site-a/10.0.0.0/24 p1", "prefix site-b/10.1.0.0/24 p3"}},
		{name: "only the asked ids of namespaces read whole",
			ids:  map[resource.Kind][]string{resource.KindNamespace: {"n1"}},
			want: []string{"namespace site-a n1"}},
		{name: "a namespace renamed", change: func(w *world) { w.ns["n1"] = wireNamed{ID: "n1", Name: "site-x", Location: "A"} },
			ids: map[resource.Kind][]string{resource.KindNamespace: {"n1"}}, untrusted: "VRF site-a"},
		{name: "a namespace deleted", change: func(w *world) { delete(w.ns, "n3") },
			ids: map[resource.Kind][]string{resource.KindNamespace: {"n3"}}, untrusted: "VRF global"},
		{name: "a group renamed", change: func(w *world) { w.groups["g2"] = wireNamed{ID: "g2", Name: "leafX"} },
			ids: map[resource.Kind][]string{resource.KindVLANGroup: {"g2"}}, untrusted: "VLAN group leaf2"},
		{name: "a group added", change: func(w *world) { w.groups["g9"] = wireNamed{ID: "g9", Name: "new", Location: "A"} },
			ids:  map[resource.Kind][]string{resource.KindVLANGroup: {"g9"}},
			want: []string{"vlan_group new g9"}},
		{name: "a VLAN unchanged", ids: map[resource.Kind][]string{resource.KindVLAN: {"v1"}},
			want: []string{"vlan leaf1/100 v1"}},
		{name: "a VLAN renumbered", change: func(w *world) { v := w.vlans["v1"]; v.VID = 101; w.vlans["v1"] = v },
			ids:  map[resource.Kind][]string{resource.KindVLAN: {"v1"}},
			want: []string{"vlan leaf1/101 v1"}, gone: []string{"vlan leaf1/100"}},
		{name: "a VLAN that left the scope", change: func(w *world) { v := w.vlans["v2"]; v.Group = "g2"; w.vlans["v2"] = v },
			ids: map[resource.Kind][]string{resource.KindVLAN: {"v2"}}, want: []string{}, gone: []string{"vlan leaf1/200"}},
		{name: "a VLAN deleted", change: func(w *world) { delete(w.vlans, "v2") },
			ids: map[resource.Kind][]string{resource.KindVLAN: {"v2"}}, want: []string{}, gone: []string{"vlan leaf1/200"}},
		{name: "a VLAN outside the scope, still named the same", change: func(w *world) { v := w.vlans["v4"]; v.Stamp = t0.Add(time.Hour); w.vlans["v4"] = v },
			ids: map[resource.Kind][]string{resource.KindVLAN: {"v4"}}, want: []string{}},
		{name: "lookups fail", change: func(w *world) { w.fail["named"] = true },
			ids: map[resource.Kind][]string{resource.KindNamespace: {"n1"}}, fails: true},
		{name: "sweep fails", change: func(w *world) { w.fail["kinds"] = true },
			ids: map[resource.Kind][]string{resource.KindVLAN: {"v1"}}, fails: true},
		{name: "keys of VLANs that left fail", change: func(w *world) { delete(w.vlans, "v2"); w.fail["vlankeys"] = true },
			ids: map[resource.Kind][]string{resource.KindVLAN: {"v2"}}, fails: true},
		{name: "resolve fails", change: func(w *world) { w.fail["resolve"] = true },
			ids: map[resource.Kind][]string{resource.KindVLAN: {"v2"}}, fails: true},
		{name: "mapping fails", change: func(w *world) { w.fail["objects"] = true },
			ids: map[resource.Kind][]string{resource.KindVLAN: {"v2"}}, fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			rr := whole(t, w)
			if tc.change != nil {
				tc.change(w)
			}
			objs, gone, err := rr.Reread(bg, tc.ids)
			if tc.untrusted != "" {
				var u *changelog.UntrustedError
				if !errors.As(err, &u) || !strings.Contains(u.Reason, tc.untrusted) {
					t.Fatalf("Reread = %v, want an *UntrustedError saying %q", err, tc.untrusted)
				}
				return
			}
			if tc.fails {
				if !errors.Is(err, errFake) {
					t.Fatalf("Reread = %v, want the server's error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(objs); !slices.Equal(got, tc.want) {
				t.Errorf("Reread = %q, want %q", got, tc.want)
			}
			var g []string
			for _, k := range gone {
				g = append(g, k.String())
			}
			if !slices.Equal(g, tc.gone) {
				t.Errorf("gone = %q, want %q", g, tc.gone)
			}
		})
	}
}

// TestChanged: a read by stamp returns what changed since, named with
// the whole read's names, and learns into a copy of them: a VLAN
// renumbered without a record still reads as renamed when reread.
func TestChanged(t *testing.T) {
	w := newWorld()
	rr := whole(t, w)
	t1 := t0.Add(time.Minute)
	v := w.vlans["v1"]
	v.VID, v.Stamp = 101, t1
	w.vlans["v1"] = v
	n := w.ns["n1"]
	n.Stamp = t1
	w.ns["n1"] = n
	since := map[resource.Kind]time.Time{resource.KindVLAN: t1, resource.KindPrefix: t1, resource.KindNamespace: t1}
	objs, err := rr.Changed(bg, since)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(objs), []string{"namespace site-a n1", "vlan leaf1/101 v1"}; !slices.Equal(got, want) {
		t.Errorf("Changed = %q, want %q", got, want)
	}
	if got := rr.last.Names().VLANs["v1"]; got != "leaf1/100" {
		t.Errorf("whole read's key of v1 = %q after Changed, want it kept as leaf1/100", got)
	}
	_, gone, err := rr.Reread(bg, map[resource.Kind][]string{resource.KindVLAN: {"v1"}})
	if err != nil || len(gone) != 1 || gone[0].Name != "leaf1/100" {
		t.Errorf("Reread after Changed = gone %v, %v; want leaf1/100 gone", gone, err)
	}

	all, err := rr.Changed(bg, map[resource.Kind]time.Time{resource.KindPrefix: {}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(all), []string{"prefix site-a/10.0.0.0/24 p1", "prefix site-a/10.0.1.0/24 p2",
		"prefix site-b/10.1.0.0/24 p3"}; !slices.Equal(got, want) {
		t.Errorf("Changed with a zero time = %q, want every prefix of the scope %q", got, want)
	}

	for _, step := range []string{"kinds", "named", "resolve"} {
		w.fail = map[string]bool{step: true}
		if _, err := rr.Changed(bg, since); !errors.Is(err, errFake) {
			t.Errorf("Changed failing at %s = %v, want the error", step, err)
		}
	}
}

// TestRereaderNames: a rereader saves its read's names and settles
// through it.
func TestRereaderNames(t *testing.T) {
	w := newWorld()
	rr := whole(t, w)
	saved, err := rr.Names()
	if err != nil || !strings.Contains(string(saved), "leaf2/400") {
		t.Errorf("Names = %s, %v; want the whole read's names", saved, err)
	}
	if err := rr.Settle(bg, changelog.Changes{}); err != nil {
		t.Error(err)
	}
	w.fail["settle"] = true
	if err := rr.Settle(bg, changelog.Changes{}); !errors.Is(err, errFake) {
		t.Errorf("Settle = %v, want the reader's error", err)
	}
}

// TestTargetRead: a State holds the objects of one read and the names
// that read was made with, whatever the server holds since.
func TestTargetRead(t *testing.T) {
	w := newWorld()
	d := newDialect(w)
	tg := NewTarget(d, testScope, FollowedLog{})
	st, err := tg.Read(bg)
	if err != nil {
		t.Fatal(err)
	}
	if w.begins != 1 || !slices.Equal(keys(st.Objects()), wholeRead) {
		t.Fatalf("Read = %q after %d reads begun; want the whole read, one read", keys(st.Objects()), w.begins)
	}
	w.ns["n1"] = wireNamed{ID: "n1", Name: "renamed"}
	if names := st.Names(); !names[resource.KindNamespace]["site-a"] || names[resource.KindNamespace]["renamed"] || w.begins != 1 {
		t.Errorf("Names after a rename = %v, %d reads begun; want the read's own, no read", names, w.begins)
	}
	again, err := tg.Read(bg)
	if err != nil || !again.Names()[resource.KindNamespace]["renamed"] || w.begins != 2 {
		t.Errorf("second Read's names = %v, %v, %d reads begun; want a read begun", again.Names(), err, w.begins)
	}
	if names, err := Names(bg, Dialect[string, *fakeReader](d)); err != nil || names == nil {
		t.Errorf("Names = %v, %v", names, err)
	}
	w.fail["begin"] = true
	if _, err := tg.Read(bg); !errors.Is(err, errFake) || !strings.Contains(err.Error(), "read fakebox") {
		t.Errorf("Read failing = %v, want the error, naming what was read", err)
	}
	if _, err := Names(bg, Dialect[string, *fakeReader](d)); !errors.Is(err, errFake) || !strings.Contains(err.Error(), "read fakebox names") {
		t.Errorf("Names failing = %v, want the error, naming what was read", err)
	}
	if _, err := Prepare(bg, Dialect[string, *fakeReader](d)); !errors.Is(err, errFake) || !strings.Contains(err.Error(), "read fakebox") {
		t.Errorf("Prepare failing = %v", err)
	}
	if _, err := Apply(bg, Dialect[string, *fakeReader](d), d.Write, nil); !errors.Is(err, errFake) {
		t.Errorf("Apply with Prepare failing = %v", err)
	}
	w.fail["begin"] = false
	r, err := Prepare(bg, Dialect[string, *fakeReader](d))
	if err != nil || r.names.Namespaces["n1"] != "renamed" || len(r.names.Groups) == 0 {
		t.Errorf("Prepare = %v; want the namespaces and groups named", err)
	}
	if res, err := Apply(bg, Dialect[string, *fakeReader](d), d.Write, []plan.Change{{Action: plan.Create}}); err != nil || res.Written != 1 {
		t.Errorf("Apply = %+v, %v; want 1 written", res, err)
	}
}

// TestTargetGlue: a State checks and writes through its dialect with the
// read it holds.
func TestTargetGlue(t *testing.T) {
	w := newWorld()
	tg := NewTarget(newDialect(w), testScope, FollowedLog{})
	if tg.Server() != "Fakebox" {
		t.Errorf("Server = %q", tg.Server())
	}
	st, err := tg.Read(bg)
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.Apply(bg, []plan.Change{{Action: plan.Create}, {Action: plan.Delete}})
	if n != 2 || err != nil {
		t.Errorf("Apply = %d, %v; want 2 written", n, err)
	}
	o := &resource.VLAN{Group: "g", VID: 1}
	if got := st.AsStored(o); got == resource.Object(o) || got.Key() != o.Key() {
		t.Errorf("AsStored = %v, want the dialect's copy", got)
	}
	var fe *FieldError
	if err := st.Check(plan.Change{Action: plan.Create, Desired: &resource.ASN{ASN: 1}}, nil); !errors.As(err, &fe) || fe.Field() != "asn" || fe.Error() == "" {
		t.Errorf("Check = %v, want a *FieldError about asn", err)
	}
	if err := st.Check(plan.Change{Action: plan.Create, Desired: o}, nil); err != nil {
		t.Errorf("Check(vlan) = %v", err)
	}
	if err := st.Check(plan.Change{Action: plan.Delete, Current: &resource.ASN{ASN: 1}}, nil); err != nil {
		t.Errorf("Check(delete) = %v, want deletes left to the server", err)
	}
	if tg.Requests() != 0 {
		t.Errorf("Requests = %d, want 0", tg.Requests())
	}
	var with *fakeReader
	tg.WritingWith(func(_ context.Context, r *fakeReader, ch []plan.Change) (bulkwrite.Result, error) {
		with = r
		return bulkwrite.Result{Written: 7}, nil
	})
	st, _ = tg.Read(bg)
	if n, err := st.Apply(bg, nil); n != 7 || err != nil || with == nil || with != st.(*State[string, *fakeReader]).Read() {
		t.Errorf("Apply after WritingWith = %d, %v; want the writer's, given the state's read", n, err)
	}
}

// TestFollowed: the follower's whole reads and restores are the reads
// the States of its view check and write with.
func TestFollowed(t *testing.T) {
	w := newWorld()
	d := newDialect(w)
	tg := NewTarget(d, testScope, FollowedLog{})
	f := followed[string, *fakeReader]{t: tg}
	objs, rr, err := f.ReadWhole(bg)
	if err != nil || !slices.Equal(keys(objs), wholeRead) {
		t.Fatalf("ReadWhole = %q, %v", keys(objs), err)
	}
	if ns := rr.(rereader[string]).namespace; ns != "VRF" {
		t.Errorf("rereader's namespace word = %q, want the dialect's", ns)
	}
	whole := tg.lastWhole()
	if whole == nil || Reader[string](whole) != rr.(rereader[string]).last {
		t.Fatalf("the target's whole read is not the follower's")
	}
	st := tg.state(objs, tg.lastWhole())
	if !st.Names()[resource.KindNamespace]["site-a"] || w.begins != 1 {
		t.Errorf("a view's names = %v, %d reads begun; want the whole read's", st.Names(), w.begins)
	}

	saved, err := rr.Names()
	if err != nil {
		t.Fatal(err)
	}
	w2 := newWorld()
	tg2 := NewTarget(newDialect(w2), testScope, FollowedLog{})
	rr2, err := followed[string, *fakeReader]{t: tg2}.Restore(bg, saved, objs)
	if err != nil {
		t.Fatal(err)
	}
	// Restored names name what is reread without a whole read.
	got, _, err := rr2.Reread(bg, map[resource.Kind][]string{resource.KindPrefix: {"p2"}})
	if err != nil || !slices.Equal(keys(got), []string{"prefix site-a/10.0.1.0/24 p2"}) || w2.begins != 0 {
		t.Errorf("Reread after Restore = %q, %v, %d reads begun", keys(got), err, w2.begins)
	}
	if st := tg2.state(objs, tg2.lastWhole()); !st.Names()[resource.KindNamespace]["site-a"] || w2.begins != 0 {
		t.Errorf("a restored view's names = %v, %d reads begun; want the restored names", st.Names(), w2.begins)
	}

	if _, err := (followed[string, *fakeReader]{t: tg2}).Restore(bg, []byte("{"), nil); err == nil {
		t.Error("Restore of a garbled save succeeded")
	}
	w2.fail["restore"] = true
	if _, err := (followed[string, *fakeReader]{t: tg2}).Restore(bg, saved, nil); !errors.Is(err, errFake) {
		t.Errorf("Restore failing = %v", err)
	}
	sc := testScope
	sc.Kinds = []resource.Kind{resource.KindSegmentRange}
	bad := NewTarget(newDialect(newWorld()), sc, FollowedLog{})
	if _, err := (followed[string, *fakeReader]{t: bad}).Restore(bg, saved, nil); err == nil {
		t.Error("Restore of a scope with a kind no server holds succeeded")
	}
	if _, _, err := (followed[string, *fakeReader]{t: bad}).ReadWhole(bg); err == nil {
		t.Error("ReadWhole of a scope with a kind no server holds succeeded")
	}
}
