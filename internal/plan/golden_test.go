package plan

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// goldenPlan has one change of every action.
func goldenPlan() *Plan {
	group := &resource.VLANGroup{M: resource.Meta{Owner: me}, Name: "a11-12-network", Location: "DC-A11", Range: resource.VIDRanges{{Lo: 100, Hi: 199}}}
	changed := vlan(me, "a11-12-network", 101, "storage")
	changed.Description = "ceph public"
	was := vlan(me, "a11-12-network", 101, "storage-old", "legacy")
	was.M.Version = "2026-11-30T10:00:00Z"
	gone := vlan(me, "a11-12-network", 150, "retired")
	loose := prefix("", "10.11.0.0/24")
	loose.Description = "made by hand"
	taken := prefix(other, "10.12.0.0/24")
	desired := objs(group, changed, prefix(me, "10.11.0.0/24"), prefix(me, "10.12.0.0/24"), ip(me, "10.11.0.10/24"))
	current := objs(was, gone, loose, taken)
	pol := DefaultPolicy(me)
	pol.Adopt = true
	p := Make(desired, current, pol)
	p.Leaks = []Leak{{Kind: "segment", Key: "tenant-x vlan:a11-12-network:170", Message: "VLAN segment with no ports (a leaked tenant network?)"}}
	return p
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file  string
		write func(*Plan, *bytes.Buffer) error
	}{
		{"plan.txt", func(p *Plan, b *bytes.Buffer) error { return p.WriteText(b) }},
		{"plan.json", func(p *Plan, b *bytes.Buffer) error { return p.WriteJSON(b, "https://nautobot.example.com") }},
		{"plan.md", func(p *Plan, b *bytes.Buffer) error {
			return p.WriteMarkdown(b, Markdown{Target: "https://nautobot.example.com"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var got bytes.Buffer
			if err := tt.write(goldenPlan(), &got); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.file)
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs from golden file:\n--- got\n%s\n--- want\n%s", tt.file, got.Bytes(), want)
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	p := goldenPlan()
	var b bytes.Buffer
	if err := p.WriteJSON(&b, "https://nautobot.example.com"); err != nil {
		t.Fatal(err)
	}
	got, target, err := ReadJSON(&b)
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	if target != "https://nautobot.example.com" {
		t.Errorf("target = %q", target)
	}
	if len(got.Changes) != len(p.Changes) {
		t.Fatalf("ReadJSON: %d changes, want %d", len(got.Changes), len(p.Changes))
	}
	for i, c := range p.Changes {
		g := got.Changes[i]
		if g.Action != c.Action || g.Key != c.Key || len(g.Fields) != len(c.Fields) {
			t.Errorf("change %d = %s %s, want %s %s", i, g.Action, g.Key, c.Action, c.Key)
		}
		if c.Desired != nil && len(g.Desired.Diff(c.Desired)) != 0 {
			t.Errorf("change %d desired differs after round trip: %v", i, g.Desired.Diff(c.Desired))
		}
		if c.Current != nil && g.Current.Meta().ID != c.Current.Meta().ID {
			t.Errorf("change %d current id = %q, want %q", i, g.Current.Meta().ID, c.Current.Meta().ID)
		}
	}
	if len(got.Summary.Rows()) != len(p.Summary.Rows()) {
		t.Errorf("summary rows = %v, want %v", got.Summary.Rows(), p.Summary.Rows())
	}
	if !slices.Equal(got.Leaks, p.Leaks) || !slices.Equal(got.Refusals, p.Refusals) {
		t.Errorf("leaks %v, refusals %v after round trip; want %v, %v", got.Leaks, got.Refusals, p.Leaks, p.Refusals)
	}
}

func TestReadJSONRefusesTamperedPlans(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"other version", `{"format_version": 99, "policy": {"owner": "static:dc"}, "changes": []}`},
		{"delete of a foreign object", `{"format_version": 1, "policy": {"owner": "static:dc"}, "changes": [
			{"action": "delete", "kind": "vlan", "key": "g/1", "current": {"meta": {"owner": "neutron:a11", "id": "x"}, "vlan_group": "g", "vid": 1, "name": "a"}}]}`},
		{"key mismatch", `{"format_version": 1, "policy": {"owner": "static:dc"}, "changes": [
			{"action": "create", "kind": "vlan", "key": "g/2", "desired": {"vlan_group": "g", "vid": 1, "name": "a"}}]}`},
		{"unknown action", `{"format_version": 1, "policy": {"owner": "static:dc"}, "changes": [{"action": "nuke", "kind": "vlan", "key": "g/1"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := ReadJSON(bytes.NewBufferString(tt.doc)); err == nil {
				t.Errorf("ReadJSON(%s) = nil error, want refusal", tt.name)
			}
		})
	}
}
