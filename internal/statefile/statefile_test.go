package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

var now = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

func header() Header {
	return Header{Format: Format, Version: "1.2.3", Site: "a11", Owner: "neutron:a11", Target: "https://nautobot.example.com"}
}

func siteScope(groups ...string) scope.Scope {
	return scope.Site(resource.NeutronOwner("a11"), "a11", groups)
}

func TestSaveLoad(t *testing.T) {
	path := Path(t.TempDir(), "a11")
	if _, err := Load(path); !errors.Is(err, ErrMissing) {
		t.Fatalf("Load() before any Save = %v, want ErrMissing", err)
	}
	in := &State{Header: header(), SavedAt: now, LastSweep: now.Add(-time.Hour), Scope: ScopeOf(siteScope("a11-12-network")),
		View:   changelog.Saved{Objects: []changelog.SavedObject{{Kind: resource.KindVLAN, Object: []byte(`{"group":"g","vid":100}`)}}, Names: []byte(`{"x":1}`)},
		Ranges: []rangehealth.Series{{Kind: "vlan", Range: "leaf12", Samples: []rangehealth.Sample{{At: now.Add(-time.Hour), Used: 8}, {At: now, Used: 9}}}}}
	for range 2 { // the second Save replaces the first
		if err := Save(path, in); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Site != "a11" || !out.LastSweep.Equal(in.LastSweep) || len(out.View.Objects) != 1 || string(out.View.Names) != `{"x":1}` ||
		len(out.Ranges) != 1 || len(out.Ranges[0].Samples) != 2 || out.Ranges[0].Samples[1].Used != 9 {
		t.Errorf("Load() = %+v, want what was saved", out)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the state's folder holds %d files, want the state alone (no temporary file left)", len(entries))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestLoadRefusesBrokenFile(t *testing.T) {
	path := Path(t.TempDir(), "a11")
	if err := os.WriteFile(path, []byte(`{"format": 1, "site": "a1`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || errors.Is(err, ErrMissing) {
		t.Errorf("Load() of a cut file = %v, want an error", err)
	}
}

func TestUsable(t *testing.T) {
	saved := func(edit func(s *State)) *State {
		s := &State{Header: header(), SavedAt: now.Add(-time.Minute), Scope: ScopeOf(siteScope("a11-12-network", "a11-13-network"))}
		if edit != nil {
			edit(s)
		}
		return s
	}
	tests := []struct {
		name  string
		state *State
		sc    scope.Scope
		want  string // in the error; "" for usable
	}{
		{name: "this agent's", state: saved(nil), sc: siteScope("a11-12-network", "a11-13-network")},
		{name: "groups grown by Neutron's physical networks", state: saved(nil), sc: siteScope("a11-12-network")},
		{name: "another format", state: saved(func(s *State) { s.Format = Format + 1 }), sc: siteScope("a11-12-network"), want: "format"},
		{name: "another version", state: saved(func(s *State) { s.Version = "1.2.2" }), sc: siteScope("a11-12-network"), want: "ipsync 1.2.2"},
		{name: "another site", state: saved(func(s *State) { s.Site = "b22" }), sc: siteScope("a11-12-network"), want: "site b22"},
		{name: "another target", state: saved(func(s *State) { s.Target = "https://netbox.example.com" }), sc: siteScope("a11-12-network"), want: "target"},
		{name: "too old", state: saved(func(s *State) { s.SavedAt = now.Add(-25 * time.Hour) }), sc: siteScope("a11-12-network"), want: "ago"},
		{name: "a group the state lacks", state: saved(nil), sc: siteScope("a11-12-network", "b22-1-network"), want: "another scope"},
		{name: "another namespace", state: saved(nil), sc: scope.Site(resource.NeutronOwner("a11"), "other", []string{"a11-12-network"}), want: "another scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.state.Usable(header(), tt.sc, now, 24*time.Hour)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Usable() = %v, want usable", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Usable() = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
