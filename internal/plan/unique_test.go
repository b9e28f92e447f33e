package plan

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// withVLAN is p using the VLAN with vid in group g.
func withVLAN(p *resource.Prefix, g string, vid uint16) *resource.Prefix {
	p.VLAN = resource.VLANKey(g, vid)
	return p
}

func from(o resource.Object, file string, line int) resource.Object {
	o.Meta().Source = resource.Source{File: file, Line: line, Col: 5}
	return o
}

// TestUniqueKeys plans changes that the natural key alone lets through
// and the target refuses by a VLAN's name in its group: they are ordered
// so that they apply, or refused before any write, naming both objects.
func TestUniqueKeys(t *testing.T) {
	tests := []struct {
		name    string
		desired []resource.Object
		current []resource.Object
		policy  func(*Policy)
		want    []string // action key [interim] [fields]
		refused []string // parts of the refusals, in order
	}{
		{
			name:    "a vid changed under the same name is an update in place",
			desired: objs(vlan(me, "g", 200, "x"), withVLAN(prefix(me, "10.0.0.0/24"), "g", 200)),
			current: objs(vlan(me, "g", 100, "x"), withVLAN(prefix(me, "10.0.0.0/24"), "g", 100)),
			want:    []string{"update vlan g/200 (current g/100) vid:100->200"},
		},
		{
			name: "several renumbered are no mass delete",
			desired: objs(vlan(me, "g", 201, "a"), vlan(me, "g", 202, "b"), vlan(me, "g", 203, "c"), vlan(me, "g", 204, "d"),
				vlan(me, "g", 205, "e")),
			current: objs(vlan(me, "g", 101, "a"), vlan(me, "g", 102, "b"), vlan(me, "g", 103, "c"), vlan(me, "g", 104, "d"),
				vlan(me, "g", 105, "e")),
			want: []string{
				"update vlan g/201 (current g/101) vid:101->201", "update vlan g/202 (current g/102) vid:102->202",
				"update vlan g/203 (current g/103) vid:103->203", "update vlan g/204 (current g/104) vid:104->204",
				"update vlan g/205 (current g/105) vid:105->205",
			},
		},
		{
			name:    "renumbered with other changes keeps them",
			desired: objs(vlan(me, "g", 200, "x", "red")),
			current: objs(vlan(me, "g", 100, "x")),
			want:    []string{"update vlan g/200 (current g/100) vid:100->200 tags:->red"},
		},
		{
			name:    "two names swapped take interim names first",
			desired: objs(vlan(me, "g", 100, "y"), vlan(me, "g", 101, "x")),
			current: objs(vlan(me, "g", 100, "x"), vlan(me, "g", 101, "y")),
			want: []string{
				"update vlan g/100 interim:name:x->ipsync-renaming-100 name:x->y",
				"update vlan g/101 interim:name:y->ipsync-renaming-101 name:y->x",
			},
		},
		{
			name:    "an interim name avoids the names in use",
			desired: objs(vlan(me, "g", 100, "y"), vlan(me, "g", 101, "x"), vlan(me, "g", 102, "ipsync-renaming-100")),
			current: objs(vlan(me, "g", 100, "x"), vlan(me, "g", 101, "y"), vlan(me, "g", 102, "ipsync-renaming-100")),
			want: []string{
				"update vlan g/100 interim:name:x->ipsync-renaming-100-2 name:x->y",
				"update vlan g/101 interim:name:y->ipsync-renaming-101 name:y->x",
			},
		},
		{
			name:    "a name passed on from a deleted VLAN",
			desired: objs(vlan(me, "g", 101, "x")),
			current: objs(vlan(me, "g", 100, "x"), vlan(me, "g", 101, "y")),
			want:    []string{"update vlan g/101 name:y->x", "delete vlan g/100 interim:name:x->ipsync-renaming-100"},
		},
		{
			name:    "a VLAN moved to another group is created there and deleted here",
			desired: objs(vlan(me, "h", 100, "x")),
			current: objs(vlan(me, "g", 100, "x")),
			want:    []string{"create vlan h/100", "delete vlan g/100"},
		},
		{
			name:    "another owner's VLAN with the name",
			desired: objs(from(vlan(me, "g", 200, "x"), "spec.yaml", 7)),
			current: objs(vlan(other, "g", 100, "x")),
			want:    []string{"conflict vlan g/200"},
			refused: []string{`vlan g/200 (spec.yaml:7:5) and vlan g/100 (owned by neutron:a11) both have name "x" in vlan_group g: the target refuses two vlans with one name in one vlan_group`},
		},
		{
			name:    "an unmarked VLAN with the name, even adopting",
			desired: objs(vlan(me, "g", 200, "x")),
			current: objs(vlan("", "g", 100, "x")),
			policy:  func(p *Policy) { p.Adopt = true },
			want:    []string{"conflict vlan g/200"},
			refused: []string{`vlan g/200 and vlan g/100 (without an ipsync marker) both have name "x"`},
		},
		{
			name:    "a rename onto another owner's name",
			desired: objs(vlan(me, "g", 100, "x")),
			current: objs(vlan(me, "g", 100, "y"), vlan(other, "g", 300, "x")),
			want:    []string{"conflict vlan g/100"},
			refused: []string{`vlan g/100 and vlan g/300 (owned by neutron:a11) both have name "x"`},
		},
		{
			name:    "two desired VLANs with one name",
			desired: objs(from(vlan(me, "g", 100, "x"), "a.yaml", 3), from(vlan(me, "g", 101, "x"), "b.yaml", 4)),
			want:    []string{"create vlan g/100", "conflict vlan g/101"},
			refused: []string{`vlan g/101 (b.yaml:4:5) and vlan g/100 (a.yaml:3:5) both have name "x"`},
		},
		{
			name:    "a VLAN keeping its name wins over one taking it",
			desired: objs(vlan(me, "g", 101, "x"), vlan(me, "g", 100, "x", "red")),
			current: objs(vlan(me, "g", 100, "x")),
			want:    []string{"update vlan g/100 tags:->red", "conflict vlan g/101"},
			refused: []string{`vlan g/101 and vlan g/100 both have name "x"`},
		},
		{
			name:    "a refused rename keeps its name from the VLAN that wanted it",
			desired: objs(vlan(me, "g", 100, "y"), vlan(me, "g", 101, "x")),
			current: objs(vlan(me, "g", 100, "x"), vlan(other, "g", 300, "y")),
			want:    []string{"conflict vlan g/100", "conflict vlan g/101"},
			refused: []string{`vlan g/100 and vlan g/300 (owned by neutron:a11) both have name "y"`, `vlan g/101 and vlan g/100 (owned by static:dc) both have name "x"`},
		},
		{
			name:    "upsert-only does not renumber",
			desired: objs(vlan(me, "g", 200, "x")),
			current: objs(vlan(me, "g", 100, "x")),
			policy:  func(p *Policy) { p.Mode = ModeUpsertOnly },
			want:    []string{"conflict vlan g/200"},
			refused: []string{`vlan g/200 and vlan g/100 (owned by static:dc) both have name "x"`},
		},
		{
			name:    "a VLAN without a group has no unique name",
			desired: objs(vlan(me, "", 100, "x"), vlan(me, "", 101, "x")),
			want:    []string{"create vlan /100", "create vlan /101"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := DefaultPolicy(me)
			if tt.policy != nil {
				tt.policy(&pol)
			}
			p := Make(tt.desired, tt.current, pol)
			var got []string
			for _, c := range p.Changes {
				got = append(got, render(c))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Make() changes =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(p.Refusals) != len(tt.refused) {
				t.Fatalf("Make() refusals = %q, want %d containing %q", p.Refusals, len(tt.refused), tt.refused)
			}
			for i, r := range p.Refusals {
				if !strings.Contains(r, tt.refused[i]) {
					t.Errorf("refusal %d = %q, want it to contain %q", i, r, tt.refused[i])
				}
			}
		})
	}
}

// render writes a change as "action key [(current key)] [interim:...] field:old->new...".
func render(c Change) string {
	s := c.Action.String() + " " + c.Key.String()
	if c.Current != nil && c.Current.Key() != c.Key {
		s += " (current " + c.Current.Key().Name + ")"
	}
	for _, f := range c.Interim {
		s += " interim:" + f.Field + ":" + f.Old + "->" + f.New
	}
	if c.Action == Update || c.Action == Adopt {
		for _, f := range c.Fields {
			s += " " + f.Field + ":" + f.Old + "->" + f.New
		}
	}
	return s
}

// TestRenumberKeepsID: the update of a renumbered VLAN writes the object
// the target has, and the prefix using it needs no write.
func TestRenumberKeepsID(t *testing.T) {
	old := vlan(me, "g", 100, "x")
	p := Make(objs(vlan(me, "g", 200, "x"), withVLAN(prefix(me, "10.0.0.0/24"), "g", 200)),
		objs(old, withVLAN(prefix(me, "10.0.0.0/24"), "g", 100)), DefaultPolicy(me))
	if len(p.Changes) != 1 || p.Changes[0].Current != old {
		t.Fatalf("Make() = %q, want one update of the current VLAN", actions(p))
	}
	s := p.Summary
	if s[resource.KindVLAN][Update] != 1 || s[resource.KindVLAN][Create] != 0 || s[resource.KindVLAN][Delete] != 0 || s[resource.KindPrefix][Noop] != 1 {
		t.Errorf("summary = %v, want one VLAN update and a prefix noop", s)
	}
}

// TestSavedPlanCarriesRenumberAndInterim: a saved plan keeps what apply
// needs of both, and reads back.
func TestSavedPlanCarriesRenumberAndInterim(t *testing.T) {
	p := Make(objs(vlan(me, "g", 200, "x"), vlan(me, "g", 101, "z"), vlan(me, "g", 102, "y")),
		objs(vlan(me, "g", 100, "x"), vlan(me, "g", 101, "y"), vlan(me, "g", 102, "z")), DefaultPolicy(me))
	var b bytes.Buffer
	if err := p.WriteJSON(&b, "t"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"interim": [`, `"field": "vid"`, `"old": "100"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("saved plan lacks %s:\n%s", want, b.String())
		}
	}
	back, _, err := ReadJSON(&b)
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	var got, want []string
	for i := range p.Changes {
		want = append(want, render(p.Changes[i]))
		got = append(got, render(back.Changes[i]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("read back\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
