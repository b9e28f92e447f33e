package sitesync

import (
	"context"
	"errors"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/scope"
)

// ErrNotFollowing says there is nothing to save: the target keeps no
// change log, or it has not been read since the Syncer started or since
// its log was last distrusted.
var ErrNotFollowing = errors.New("the target's view is not being followed")

// Save returns what Resume needs: the scope the target is read in, and
// its followed view with its place in the change log.
func (s *Syncer) Save() (scope.Scope, changelog.Saved, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.follower == nil || !s.following {
		return scope.Scope{}, changelog.Saved{}, ErrNotFollowing
	}
	saved, ok, err := s.follower.Save()
	if err != nil {
		return scope.Scope{}, changelog.Saved{}, err
	}
	if !ok {
		return scope.Scope{}, changelog.Saved{}, ErrNotFollowing
	}
	return s.cfg.Scope, saved, nil
}

// Resume follows the target on from saved, read in sc (the scope of the
// Syncer's config, its VLAN groups grown as Neutron's physical networks
// grew them, see Config.Rescope). The next sync reads the target's change
// log since then and checks the view, as every sync does, and reads
// Neutron whole: what its notifications said meanwhile may have gone to
// another agent.
func (s *Syncer) Resume(ctx context.Context, sc scope.Scope, saved changelog.Saved) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, f := s.target, s.follower
	if len(sc.VLANGroups) != len(s.cfg.Scope.VLANGroups) && s.cfg.Rescope != nil {
		target, f = s.cfg.Rescope(sc)
	}
	if f == nil {
		return ErrNotFollowing
	}
	if err := f.Resume(ctx, saved); err != nil {
		return err
	}
	s.target, s.follower, s.cfg.Scope, s.following = target, f, sc, true
	return nil
}
