// Package statefile keeps what a site agent needs to resume after a
// restart without reading the target whole: the target's followed view
// and its place in the change log, the scope it was read in, and when the
// last sweep ran. The file is written atomically (a temporary file in the
// same directory, synced, then renamed over the old one), so a crash
// leaves the old state or the new, never half of one; and it says which
// format, ipsync version, site, owner and target it belongs to, so that a
// state that is not this agent's is never followed on from.
package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/events"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Format is the layout of the file; a file of another is not read.
const Format = 2

// Header says whose state a file holds.
type Header struct {
	Format  int    `json:"format"`
	Version string `json:"version"` // ipsync's
	Site    string `json:"site"`
	Owner   string `json:"owner"`
	Target  string `json:"target"` // the target's URL
}

// State is one site agent's state.
type State struct {
	Header
	SavedAt time.Time `json:"saved_at"`
	// LastSweep is when the last sweep began: a restart keeps the sweeps'
	// cadence instead of sweeping again.
	LastSweep time.Time       `json:"last_sweep,omitzero"`
	Scope     Scope           `json:"scope"`
	View      changelog.Saved `json:"view"`
	// Neutron is kept only by an agent that stopped cleanly while it
	// consumed Neutron's notifications: the marker it left in its queue
	// lets the next start tell whether the queue kept every notification
	// since.
	Neutron *Neutron `json:"neutron,omitempty"`
	// Queue is the agent's own notification queue, which its next start
	// consumes again.
	Queue string `json:"queue,omitempty"`
	// Ranges is the history of the ranges' use the forecasts come from,
	// which a restart keeps even where it cannot follow on from the rest.
	Ranges []rangehealth.Series `json:"ranges,omitempty"`
}

// Neutron is Neutron as the agent's last sync saw it.
type Neutron struct {
	Snapshot *neutron.Snapshot `json:"snapshot"`
	// LastRead is when the last sync of the whole site began.
	LastRead time.Time `json:"last_read"`
	// Networks are those notifications named that no sync covered.
	Networks []string      `json:"networks,omitempty"`
	Marker   events.Marker `json:"marker"`
}

// Scope is the scope the view was read in (a scope.Scope without Only,
// which an agent's never has).
type Scope struct {
	Owner      resource.Owner  `json:"owner"`
	Kinds      []resource.Kind `json:"kinds"`
	Namespaces []string        `json:"namespaces"`
	VLANGroups []string        `json:"vlan_groups"`
	Locations  []string        `json:"locations"`
}

// ScopeOf is sc as saved.
func ScopeOf(sc scope.Scope) Scope {
	return Scope{Owner: sc.Owner, Kinds: sc.Kinds, Namespaces: sc.Namespaces, VLANGroups: sc.VLANGroups, Locations: sc.Locations}
}

// Scope is the scope.Scope s was saved from.
func (s Scope) Scope() scope.Scope {
	return scope.Scope{Owner: s.Owner, Kinds: s.Kinds, Namespaces: s.Namespaces, VLANGroups: s.VLANGroups, Locations: s.Locations}
}

// Path is where the state of site lives in dir.
func Path(dir, site string) string { return filepath.Join(dir, site+".state.json") }

// ErrMissing is a state that was never saved.
var ErrMissing = errors.New("no saved state")

// Save writes s to path atomically.
func Save(path string, s *State) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; left only on failure
	if err := json.NewEncoder(tmp).Encode(s); err != nil {
		tmp.Close()
		return fmt.Errorf("save state %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save state %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save state %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save state %s: %w", path, err)
	}
	// The rename is durable once the directory is.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Load reads the state at path; ErrMissing if there is none.
func Load(path string) (*State, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrMissing
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	defer f.Close()
	var s State
	if err := json.NewDecoder(f).Decode(&s); err != nil {
		return nil, fmt.Errorf("read state %s: %w", path, err)
	}
	return &s, nil
}

// Usable says why s cannot be followed on from by an agent of want whose
// scope is sc, at now: another format, ipsync version, site, owner or
// target; saved longer ago than maxAge (the change log may be pruned, and
// a cursor is trusted for changelog.MaxGap); or read in another scope. A
// scope whose VLAN groups grew, as an agent's does when Neutron has
// physical networks the config does not list, is the same scope.
func (s *State) Usable(want Header, sc scope.Scope, now time.Time, maxAge time.Duration) error {
	switch {
	case s.Format != want.Format:
		return fmt.Errorf("saved in format %d, this ipsync reads %d", s.Format, want.Format)
	case s.Version != want.Version:
		return fmt.Errorf("saved by ipsync %s, this is %s", s.Version, want.Version)
	case s.Site != want.Site || s.Owner != want.Owner:
		return fmt.Errorf("saved for site %s (owner %s)", s.Site, s.Owner)
	case s.Target != want.Target:
		return fmt.Errorf("saved for target %s", s.Target)
	case now.Sub(s.SavedAt) > maxAge:
		return fmt.Errorf("saved %v ago, more than %v", now.Sub(s.SavedAt).Round(time.Second), maxAge)
	}
	grown := s.Scope.Scope()
	grown.VLANGroups = sc.VLANGroups
	if !equalScope(grown, sc) || !isSubset(sc.VLANGroups, s.Scope.VLANGroups) {
		return errors.New("saved in another scope: the config's namespaces, VLAN groups, locations or kinds changed")
	}
	return nil
}

func equalScope(a, b scope.Scope) bool {
	return a.Owner == b.Owner && slices.Equal(a.Namespaces, b.Namespaces) && slices.Equal(a.VLANGroups, b.VLANGroups) &&
		slices.Equal(a.Locations, b.Locations) && slices.Equal(a.Kinds, b.Kinds) && a.Only == nil && b.Only == nil
}

func isSubset(small, big []string) bool {
	for _, s := range small {
		if !slices.Contains(big, s) {
			return false
		}
	}
	return true
}
