package plan

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/resource"
)

const (
	me    = resource.Owner("static:dc")
	other = resource.Owner("neutron:a11")
)

func vlan(owner resource.Owner, group string, vid uint16, name string, tags ...string) *resource.VLAN {
	return &resource.VLAN{M: resource.Meta{Owner: owner, ID: "id-" + name}, Group: group, VID: vid, Name: name, Status: "Active", Tags: tags}
}

func prefix(owner resource.Owner, cidr string) *resource.Prefix {
	return &resource.Prefix{M: resource.Meta{Owner: owner}, Namespace: "a11", Prefix: netip.MustParsePrefix(cidr), Type: resource.PrefixNetwork, Status: "Active"}
}

func ip(owner resource.Owner, addr string) *resource.IPAddress {
	return &resource.IPAddress{M: resource.Meta{Owner: owner}, Namespace: "a11", Address: netip.MustParsePrefix(addr), Status: "Active"}
}

func objs(o ...resource.Object) []resource.Object { return o }

// actions renders a plan's changes as "action key" strings, in order.
func actions(p *Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.Action.String()+" "+c.Key.String())
	}
	return out
}

func TestMakeOwnership(t *testing.T) {
	tests := []struct {
		name    string
		desired []resource.Object
		current []resource.Object
		policy  func(*Policy)
		want    []string
		refused bool
	}{
		{
			name:    "missing object is created",
			desired: objs(vlan(me, "g", 100, "a")),
			want:    []string{"create vlan g/100"},
		},
		{
			name:    "own object with same fields is a noop",
			desired: objs(vlan(me, "g", 100, "a", "x", "y")),
			current: objs(vlan(me, "g", 100, "a", "y", "x")),
			want:    nil,
		},
		{
			name:    "own object with a changed field is updated",
			desired: objs(vlan(me, "g", 100, "new")),
			current: objs(vlan(me, "g", 100, "old")),
			want:    []string{"update vlan g/100"},
		},
		{
			name:    "own object no longer desired is deleted",
			current: objs(vlan(me, "g", 100, "a")),
			want:    []string{"delete vlan g/100"},
		},
		{
			name:    "unmarked object not desired is left alone",
			current: objs(vlan("", "g", 100, "a")),
			want:    nil,
		},
		{
			name:    "other owner's object not desired is left alone",
			current: objs(vlan(other, "g", 100, "a")),
			want:    nil,
		},
		{
			name:    "unmarked object matching a desired one is a conflict",
			desired: objs(vlan(me, "g", 100, "a")),
			current: objs(vlan("", "g", 100, "a")),
			want:    []string{"conflict vlan g/100"},
			refused: true,
		},
		{
			name:    "unmarked object is adopted when asked",
			desired: objs(vlan(me, "g", 100, "a")),
			current: objs(vlan("", "g", 100, "b")),
			policy:  func(p *Policy) { p.Adopt = true },
			want:    []string{"adopt vlan g/100"},
		},
		{
			name:    "other owner's object is a conflict even with adopt",
			desired: objs(vlan(me, "g", 100, "a")),
			current: objs(vlan(other, "g", 100, "a")),
			policy:  func(p *Policy) { p.Adopt = true },
			want:    []string{"conflict vlan g/100"},
			refused: true,
		},
		{
			name:    "duplicate keys on the target are a conflict",
			desired: objs(vlan(me, "g", 100, "a")),
			current: objs(vlan(me, "g", 100, "a"), vlan(me, "g", 100, "b")),
			want:    []string{"conflict vlan g/100"},
			refused: true,
		},
		{
			name:    "duplicate desired keys are a conflict",
			desired: objs(vlan(me, "g", 100, "a"), vlan(me, "g", 100, "b")),
			want:    []string{"create vlan g/100", "conflict vlan g/100"},
			refused: true,
		},
		{
			name:    "upsert-only never deletes",
			desired: objs(vlan(me, "g", 101, "b")),
			current: objs(vlan(me, "g", 100, "a")),
			policy:  func(p *Policy) { p.Mode = ModeUpsertOnly },
			want:    []string{"create vlan g/101"},
		},
		{
			name:    "create-only neither updates nor deletes",
			desired: objs(vlan(me, "g", 100, "new"), vlan(me, "g", 101, "b")),
			current: objs(vlan(me, "g", 100, "old"), vlan(me, "g", 102, "c")),
			policy:  func(p *Policy) { p.Mode = ModeCreateOnly },
			want:    []string{"create vlan g/101"},
		},
		{
			name:    "create-only does not adopt",
			desired: objs(vlan(me, "g", 100, "a")),
			current: objs(vlan("", "g", 100, "a")),
			policy:  func(p *Policy) { p.Mode = ModeCreateOnly; p.Adopt = true },
			want:    []string{"conflict vlan g/100"},
			refused: true,
		},
		{
			name:    "creates parent first, deletes child first",
			desired: objs(ip(me, "10.0.0.5/24"), prefix(me, "10.0.0.0/24"), prefix(me, "10.0.0.0/16"), vlan(me, "g", 100, "a")),
			current: objs(prefix(me, "10.9.0.0/24"), ip(me, "10.9.0.5/24"), prefix(me, "10.9.0.0/16")),
			policy:  func(p *Policy) { p.AllowMassDelete = true },
			want: []string{
				"create vlan g/100", "create prefix a11/10.0.0.0/16", "create prefix a11/10.0.0.0/24", "create ip_address a11/10.0.0.5",
				"delete ip_address a11/10.9.0.5", "delete prefix a11/10.9.0.0/24", "delete prefix a11/10.9.0.0/16",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := DefaultPolicy(me)
			if tt.policy != nil {
				tt.policy(&pol)
			}
			p := Make(tt.desired, tt.current, pol)
			if got := actions(p); !slices.Equal(got, tt.want) {
				t.Errorf("Make() changes = %q, want %q", got, tt.want)
			}
			if got := len(p.Refusals) > 0; got != tt.refused {
				t.Errorf("Make() refused = %v (%q), want %v", got, p.Refusals, tt.refused)
			}
		})
	}
}

func TestMakeNeverTouchesForeignObjects(t *testing.T) {
	current := objs(vlan("", "g", 1, "a"), vlan(other, "g", 2, "b"), vlan(me, "g", 3, "c"))
	desired := objs(vlan(me, "g", 1, "x"), vlan(me, "g", 2, "y"))
	for _, mode := range []Mode{ModeSync, ModeUpsertOnly, ModeCreateOnly} {
		pol := DefaultPolicy(me)
		pol.Mode = mode
		pol.AllowMassDelete = true
		for _, c := range Make(desired, current, pol).Changes {
			if c.Action.Writes() && c.Current != nil && c.Current.Meta().Owner != me && c.Action != Adopt {
				t.Errorf("mode %s: %s writes %s owned by %q", mode, c.Action, c.Key, c.Current.Meta().Owner)
			}
		}
	}
}

func TestMakeFieldDiffs(t *testing.T) {
	d := vlan(me, "g", 100, "new", "b", "a")
	d.Description = "uplink"
	c := vlan(me, "g", 100, "old", "a", "c")
	p := Make(objs(d), objs(c), DefaultPolicy(me))
	if len(p.Changes) != 1 {
		t.Fatalf("Make() = %d changes, want 1", len(p.Changes))
	}
	want := []resource.FieldDiff{{Field: "name", Old: "old", New: "new"}, {Field: "description", Old: "", New: "uplink"}, {Field: "tags", Old: "a,c", New: "a,b"}}
	if got := p.Changes[0].Fields; !slices.Equal(got, want) {
		t.Errorf("fields = %+v, want %+v", got, want)
	}
}

func TestMassDeleteGuard(t *testing.T) {
	tests := []struct {
		name    string
		owned   int
		deletes int
		policy  func(*Policy)
		refused bool
	}{
		{name: "few deletes of few objects pass", owned: 10, deletes: 4},
		{name: "five of ten is refused", owned: 10, deletes: 5, refused: true},
		{name: "ten percent passes", owned: 100, deletes: 10},
		{name: "eleven percent is refused", owned: 100, deletes: 11, refused: true},
		{name: "allow lifts the guard", owned: 10, deletes: 10, policy: func(p *Policy) { p.AllowMassDelete = true }},
		{name: "count limit", owned: 1000, deletes: 50, policy: func(p *Policy) { p.MaxDeleteCount = 20 }, refused: true},
		{name: "empty desired against many owned is refused", owned: 200, deletes: 200, refused: true},
		{name: "a part measured against the whole passes", owned: 10, deletes: 10, policy: func(p *Policy) { p.OwnedTotal = 1000 }},
		{name: "upsert-only deletes nothing", owned: 10, deletes: 10, policy: func(p *Policy) { p.Mode = ModeUpsertOnly }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var desired, current []resource.Object
			for i := range tt.owned {
				v := vlan(me, "g", uint16(i+1), "v")
				current = append(current, v)
				if i >= tt.deletes {
					desired = append(desired, v)
				}
			}
			pol := DefaultPolicy(me)
			if tt.policy != nil {
				tt.policy(&pol)
			}
			p := Make(desired, current, pol)
			if got := len(p.Refusals) > 0; got != tt.refused {
				t.Errorf("refused = %v (%q), want %v", got, p.Refusals, tt.refused)
			}
		})
	}
}

func TestKindCount(t *testing.T) {
	if got := len(resource.Kinds()); got != kindCount {
		t.Errorf("len(resource.Kinds()) = %d, want kindCount = %d", got, kindCount)
	}
}

func TestSummaryCountsNoops(t *testing.T) {
	v := vlan(me, "g", 100, "a")
	p := Make(objs(v, vlan(me, "g", 101, "b")), objs(v), DefaultPolicy(me))
	if got := p.Summary[resource.KindVLAN]; got[Noop] != 1 || got[Create] != 1 {
		t.Errorf("summary = %v, want 1 noop and 1 create", got)
	}
}

// TestMakeSharded runs the parallel path (large inputs) and checks it finds
// exactly the changes the generator planted, with a deterministic order.
func TestMakeSharded(t *testing.T) {
	desired, current := benchdata.State(100_000, me)
	// Plant duplicates that must meet in one shard.
	desired = append(desired, desired[7])
	current = append(current, benchdata.Copy(desired[9], me))
	p := Make(desired, current, DefaultPolicy(me))
	want := map[Action]int{Create: 500, Update: 1000, Delete: 500, Conflict: 2}
	for a, n := range want {
		if got := p.Summary.Total(a); got != n {
			t.Errorf("Total(%s) = %d, want %d", a, got, n)
		}
	}
	// desired[9] turns from noop into a conflict; the second desired[7] is one more conflict.
	if got, want := p.Summary.Total(Noop), 100_000-500-1000-1; got != want {
		t.Errorf("Total(noop) = %d, want %d", got, want)
	}
	again := Make(desired, current, DefaultPolicy(me))
	if !slices.Equal(actions(p), actions(again)) {
		t.Errorf("two plans of the same input differ in order")
	}
}

// TestConflictRefusal: the refusal suggests --adopt only when adopting
// would resolve a conflict.
func TestConflictRefusal(t *testing.T) {
	unmarked, foreign := vlan("", "g", 100, "a"), vlan(other, "g", 101, "b")
	tests := []struct {
		name      string
		current   []resource.Object
		policy    func(*Policy)
		wantAdopt bool
		want      string
	}{
		{"unmarked", objs(unmarked), func(*Policy) {}, true, "1 conflict: "},
		{"another owner's", objs(foreign), func(*Policy) {}, false, "belong to another owner"},
		{"both", objs(unmarked, foreign), func(*Policy) {}, true, "1 carry no ipsync marker"},
		{"another owner's, adopting", objs(unmarked, foreign), func(p *Policy) { p.Adopt = true }, false, "1 conflict: "},
		{"unmarked, create-only adopting", objs(unmarked), func(p *Policy) { p.Adopt, p.Mode = true, ModeCreateOnly }, false, "create-only never adopts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := DefaultPolicy(me)
			tt.policy(&pol)
			p := Make(objs(vlan(me, "g", 100, "a"), vlan(me, "g", 101, "b")), tt.current, pol)
			var text string
			for _, r := range p.Refusals {
				text += r + "\n"
			}
			for _, c := range p.Changes {
				text += c.Reason + "\n"
			}
			if got := strings.Contains(text, "--adopt"); got != tt.wantAdopt || !strings.Contains(text, tt.want) {
				t.Errorf("refusals and reasons:\n%s\nsuggest --adopt = %v, want %v; want %q in them", text, got, tt.wantAdopt, tt.want)
			}
		})
	}
}

// TestChangesSortNumerically: addresses, prefixes, VIDs and ASNs are listed
// by value, and prefixes nest: containers created first, deleted last.
func TestChangesSortNumerically(t *testing.T) {
	desired := objs(
		ip(me, "10.70.1.168/24"), ip(me, "10.70.1.46/24"), ip(me, "10.70.1.5/24"),
		prefix(me, "10.70.1.128/25"), prefix(me, "10.70.0.0/16"), prefix(me, "10.70.1.0/25"), prefix(me, "9.0.0.0/8"),
		vlan(me, "g", 1000, "c"), vlan(me, "g", 100, "b"), vlan(me, "g", 99, "a"),
		&resource.ASN{M: resource.Meta{Owner: me}, ASN: 65100}, &resource.ASN{M: resource.Meta{Owner: me}, ASN: 6500},
	)
	current := objs(prefix(me, "172.16.0.0/16"), prefix(me, "172.16.1.0/24"), prefix(me, "172.16.200.0/24"), prefix(me, "172.16.0.0/24"),
		ip(me, "172.16.1.20/24"), ip(me, "172.16.1.3/24"))
	pol := DefaultPolicy(me)
	pol.AllowMassDelete = true
	want := []string{
		"create vlan g/99", "create vlan g/100", "create vlan g/1000",
		"create prefix a11/9.0.0.0/8", "create prefix a11/10.70.0.0/16", "create prefix a11/10.70.1.0/25", "create prefix a11/10.70.1.128/25",
		"create ip_address a11/10.70.1.5", "create ip_address a11/10.70.1.46", "create ip_address a11/10.70.1.168",
		"create asn 6500", "create asn 65100",
		"delete ip_address a11/172.16.1.3", "delete ip_address a11/172.16.1.20",
		"delete prefix a11/172.16.0.0/24", "delete prefix a11/172.16.1.0/24", "delete prefix a11/172.16.200.0/24", "delete prefix a11/172.16.0.0/16",
	}
	if got := actions(Make(desired, current, pol)); !slices.Equal(got, want) {
		t.Errorf("order:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
