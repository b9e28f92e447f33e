// Package kubelease keeps the one-writer-per-owner lease as a Kubernetes
// Lease (coordination.k8s.io/v1), for agents that run in a cluster and
// would rather not keep their lock in the source of truth.
//
// It takes client-go's LeaseLock, the lock its leaderelection package
// uses, but not that package's elector: the agent's loop already owns the
// timing rule (a renewal counts from when it was sent, is answered within
// one renew interval or not at all, and writes stop a renew interval
// before the lease can expire), and it applies one rule to both kinds of
// lease. Here each Acquire is one attempt: a create, or an update guarded
// by the Lease's resourceVersion, so of two agents updating the same
// Lease exactly one succeeds.
package kubelease

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/ipsync/ipsync/internal/clock"
)

// Config names the lease.
type Config struct {
	// Namespace holds the Lease.
	Namespace string
	// Owner is what is leased, e.g. "neutron:a11"; Name derives the
	// Lease's name from it.
	Owner string
	// Holder identifies this agent (host, pid and a random part).
	Holder string
	// TTL is how long the lease lasts without renewal, written to the
	// Lease in whole seconds (rounded up).
	TTL time.Duration
	// Clock tells the time renewals are written and judged by (default
	// the wall clock).
	Clock clock.Clock
}

// Lease is one agent's hold on an owner's Lease.
type Lease struct {
	lock *resourcelock.LeaseLock
	cfg  Config
	held bool // the last attempt took or renewed it
	// last is the record this agent last wrote, renewed as it is: the
	// acquire time and transition count stay.
	last resourcelock.LeaderElectionRecord
}

// New returns a lease, not yet held, kept in client's cluster.
func New(client coordinationv1client.LeasesGetter, cfg Config) *Lease {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 2 * time.Minute
	}
	return &Lease{
		cfg: cfg,
		lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: cfg.Namespace, Name: Name(cfg.Owner)},
			Client:     client,
			LockConfig: resourcelock.ResourceLockConfig{Identity: cfg.Holder},
			Labels:     map[string]string{"app.kubernetes.io/managed-by": "ipsync"},
		},
	}
}

var notName = regexp.MustCompile(`[^a-z0-9.-]+`)

// Name is the Lease's name for owner: "ipsync-" and the owner in the
// characters a Kubernetes name allows, e.g. "ipsync-neutron-a11" for
// "neutron:a11". The Helm chart's Role names the same Leases.
func Name(owner string) string {
	n := "ipsync-" + strings.Trim(notName.ReplaceAllString(strings.ToLower(owner), "-"), "-.")
	if len(n) > 253 {
		n = n[:253]
	}
	return strings.TrimRight(n, "-.")
}

// Describe names the Lease for messages: namespace/name.
func (l *Lease) Describe() string { return l.lock.Describe() }

func (l *Lease) record(now time.Time, prev *resourcelock.LeaderElectionRecord) resourcelock.LeaderElectionRecord {
	r := resourcelock.LeaderElectionRecord{
		HolderIdentity:       l.cfg.Holder,
		LeaseDurationSeconds: int(math.Ceil(l.cfg.TTL.Seconds())),
		AcquireTime:          metav1.NewTime(now),
		RenewTime:            metav1.NewTime(now),
	}
	if prev != nil {
		r.LeaderTransitions = prev.LeaderTransitions
		if prev.HolderIdentity == l.cfg.Holder {
			r.AcquireTime = prev.AcquireTime
		} else {
			r.LeaderTransitions++
		}
	}
	return r
}

// Acquire takes or renews the lease and reports whether this agent holds
// it. A held lease is renewed with one update; a conflict (someone else
// wrote the Lease since) makes it read the Lease and decide again.
func (l *Lease) Acquire(ctx context.Context) (bool, error) {
	now := l.cfg.Clock.Now()
	if l.held {
		rec := l.record(now, &l.last)
		err := l.lock.Update(ctx, rec)
		switch {
		case err == nil:
			l.last = rec
			return true, nil
		case !apierrors.IsConflict(err):
			return false, fmt.Errorf("renew lease %s: %w", l.Describe(), err)
		}
	}
	ok, err := l.contend(ctx, now)
	l.held = ok && err == nil
	return l.held, err
}

// contend reads the Lease and takes it if it is free, expired or ours.
func (l *Lease) contend(ctx context.Context, now time.Time) (bool, error) {
	rec, _, err := l.lock.Get(ctx)
	switch {
	case apierrors.IsNotFound(err):
		rec := l.record(now, nil)
		err := l.lock.Create(ctx, rec)
		switch {
		case err == nil:
			l.last = rec
			return true, nil
		case apierrors.IsAlreadyExists(err):
			return false, nil // another agent created it first
		}
		return false, fmt.Errorf("take lease %s: %w", l.Describe(), err)
	case err != nil:
		return false, fmt.Errorf("read lease %s: %w", l.Describe(), err)
	}
	if rec.HolderIdentity != l.cfg.Holder && rec.HolderIdentity != "" && now.Before(expiry(rec)) {
		return false, nil
	}
	// Free, expired, or ours from before a lost answer: the update is
	// guarded by the resourceVersion just read, so if another agent
	// wrote the Lease meanwhile, this one is refused.
	next := l.record(now, rec)
	err = l.lock.Update(ctx, next)
	switch {
	case err == nil:
		l.last = next
		return true, nil
	case apierrors.IsConflict(err):
		return false, nil
	}
	return false, fmt.Errorf("take lease %s: %w", l.Describe(), err)
}

// expiry is when a record lapses. Like the tag lease it trusts the
// holder's clock: the agents' clocks must agree to well within a renew
// interval, which is the margin the agent's writes keep.
func expiry(r *resourcelock.LeaderElectionRecord) time.Time {
	return r.RenewTime.Add(time.Duration(r.LeaseDurationSeconds) * time.Second)
}

// Release gives the lease up, so a waiting agent takes over at once: the
// holder is cleared, as client-go's elector does on release.
func (l *Lease) Release(ctx context.Context) error {
	if !l.held {
		return nil
	}
	l.held = false
	now := l.cfg.Clock.Now()
	err := l.lock.Update(ctx, resourcelock.LeaderElectionRecord{
		LeaseDurationSeconds: 1,
		AcquireTime:          metav1.NewTime(now),
		RenewTime:            metav1.NewTime(now),
		LeaderTransitions:    l.last.LeaderTransitions,
	})
	if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release lease %s: %w", l.Describe(), err)
	}
	return nil
}

// Holder returns who holds the lease now and until when; holder is ""
// when nobody does.
func (l *Lease) Holder(ctx context.Context) (holder string, until time.Time, err error) {
	lease, err := l.lock.Client.Leases(l.cfg.Namespace).Get(ctx, l.lock.LeaseMeta.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", time.Time{}, nil
	case err != nil:
		return "", time.Time{}, fmt.Errorf("read lease %s: %w", l.Describe(), err)
	}
	rec := resourcelock.LeaseSpecToLeaderElectionRecord(&lease.Spec)
	if rec.HolderIdentity == "" || !l.cfg.Clock.Now().Before(expiry(rec)) {
		return "", time.Time{}, nil
	}
	return rec.HolderIdentity, expiry(rec), nil
}
