package plan

import (
	"fmt"

	"github.com/ipsync/ipsync/internal/plural"

	"github.com/ipsync/ipsync/internal/resource"
)

// Mode says which writes a plan may contain.
type Mode string

const (
	// Sync creates, updates and deletes, making the target match exactly.
	ModeSync Mode = "sync"
	// UpsertOnly creates and updates but never deletes.
	ModeUpsertOnly Mode = "upsert-only"
	// CreateOnly only creates what is missing.
	ModeCreateOnly Mode = "create-only"
)

// ParseMode accepts a mode as written in config files and flags.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeSync, ModeUpsertOnly, ModeCreateOnly:
		return m, nil
	}
	return "", fmt.Errorf("unknown policy mode %q: want sync, upsert-only or create-only", s)
}

// Policy is everything that decides what a plan may do besides the data.
type Policy struct {
	// Owner is the owner being synced; only objects carrying its marker are
	// updated or deleted.
	Owner resource.Owner `json:"owner"`
	Mode  Mode           `json:"mode"`
	// Adopt takes over unmarked objects that match a desired one by natural
	// key, instead of reporting them as conflicts.
	Adopt bool `json:"adopt"`
	// MaxDeletePercent and MaxDeleteMin form the mass-delete guard: a plan
	// deleting at least MaxDeleteMin objects and more than MaxDeletePercent
	// of the owner's objects is refused. MaxDeleteCount, when positive,
	// refuses any plan deleting more than that many objects.
	MaxDeletePercent float64 `json:"max_delete_percent"`
	MaxDeleteMin     int     `json:"max_delete_min"`
	MaxDeleteCount   int     `json:"max_delete_count,omitempty"`
	// AllowMassDelete lifts the guard for one run.
	AllowMassDelete bool `json:"allow_mass_delete"`
	// OwnedTotal, when a plan covers only part of the owner's objects (an
	// event-driven sync of a few networks), is how many the owner has in
	// all, so that the guard measures deletes against the whole.
	OwnedTotal int `json:"owned_total,omitempty"`
}

// DefaultPolicy is sync with the mass-delete guard at 10% and 5 objects.
func DefaultPolicy(owner resource.Owner) Policy {
	return Policy{Owner: owner, Mode: ModeSync, MaxDeletePercent: 10, MaxDeleteMin: 5}
}

// massDelete reports why deleting n of owned objects is refused, or "".
func (p Policy) massDelete(n, owned int) string {
	if p.AllowMassDelete || n == 0 {
		return ""
	}
	owned = max(owned, p.OwnedTotal)
	if p.MaxDeleteCount > 0 && n > p.MaxDeleteCount {
		return fmt.Sprintf("plan deletes %s, more than the limit of %d; rerun with --allow-mass-delete if that is intended", plural.Of(n, "object"), p.MaxDeleteCount)
	}
	if n >= p.MaxDeleteMin && float64(n) > p.MaxDeletePercent/100*float64(owned) {
		return fmt.Sprintf("plan deletes %d of %d objects owned by %s (more than %g%%); a half-read source must not empty the target, rerun with --allow-mass-delete if that is intended", n, owned, p.Owner, p.MaxDeletePercent)
	}
	return ""
}
