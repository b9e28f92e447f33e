package kubelease

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

func TestName(t *testing.T) {
	for _, tt := range []struct{ owner, want string }{
		{"neutron:a11", "ipsync-neutron-a11"},
		{"static:deploy", "ipsync-static-deploy"},
		{"neutron:A_11", "ipsync-neutron-a-11"},
		{"static:my spec.v2", "ipsync-static-my-spec.v2"},
		{"neutron:-x-", "ipsync-neutron--x"},
	} {
		if got := Name(tt.owner); got != tt.want {
			t.Errorf("Name(%q) = %q, want %q", tt.owner, got, tt.want)
		}
	}
}

// cluster connects to the real API server the tests are given.
func cluster(t *testing.T) (coordinationv1client.LeasesGetter, string) {
	t.Helper()
	kc := os.Getenv("IPSYNC_KUBECONFIG")
	if kc == "" {
		t.Skip("set IPSYNC_KUBECONFIG to a kubeconfig of a real kube-apiserver (scripts/kube-up.sh start prints one) to run")
	}
	c, ns, err := Client(kc, "", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c, ns
}

// owner is a name no other test run uses.
func owner(t *testing.T) string {
	return fmt.Sprintf("test:%s-%d", t.Name(), time.Now().UnixNano())
}

func mustAcquire(t *testing.T, l *Lease, want bool) {
	t.Helper()
	got, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatalf("Acquire by %s: %v", l.cfg.Holder, err)
	}
	if got != want {
		t.Fatalf("Acquire by %s = %v, want %v", l.cfg.Holder, got, want)
	}
}

// TestOneHolderOfMany lets agents contend for one Lease at the same time,
// on a new Lease and on one just released: exactly one wins each time,
// renews, and the others stay out until it lets go.
func TestOneHolderOfMany(t *testing.T) {
	c, ns := cluster(t)
	name := owner(t)
	var leases []*Lease
	for i := range 6 {
		leases = append(leases, New(c, Config{Namespace: ns, Owner: name, Holder: fmt.Sprintf("agent-%d", i), TTL: time.Minute}))
	}
	contend := func() *Lease {
		t.Helper()
		won := make([]bool, len(leases))
		var wg sync.WaitGroup
		for i, l := range leases {
			wg.Go(func() {
				ok, err := l.Acquire(context.Background())
				if err != nil {
					t.Errorf("Acquire by %s: %v", l.cfg.Holder, err)
				}
				won[i] = ok
			})
		}
		wg.Wait()
		var holder *Lease
		for i, ok := range won {
			if ok {
				if holder != nil {
					t.Fatalf("two holders: %s and %s", holder.cfg.Holder, leases[i].cfg.Holder)
				}
				holder = leases[i]
			}
		}
		if holder == nil {
			t.Fatalf("no holder of %d contenders", len(leases))
		}
		return holder
	}
	for round := range 3 {
		holder := contend()
		for range 2 {
			for _, l := range leases {
				mustAcquire(t, l, l == holder)
			}
		}
		got, until, err := holder.Holder(context.Background())
		if err != nil || got != holder.cfg.Holder || time.Until(until) < 50*time.Second {
			t.Errorf("round %d: Holder() = %q until %v, %v; want %q for about a minute", round, got, until, err, holder.cfg.Holder)
		}
		if err := holder.Release(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got, _, err := holder.Holder(context.Background()); err != nil || got != "" {
			t.Errorf("round %d: Holder() after release = %q, %v; want none", round, got, err)
		}
	}
	lease, err := c.Leases(ns).Get(context.Background(), Name(name), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := *lease.Spec.LeaseTransitions; got < 2 {
		t.Errorf("leaseTransitions = %d after three rounds of new holders, want at least 2", got)
	}
}

// TestExpiredLeaseIsTaken stops renewing a lease: another agent takes it
// only once it expired, and the old holder, renewing late, finds it gone.
func TestExpiredLeaseIsTaken(t *testing.T) {
	c, ns := cluster(t)
	clk := clocktest.New(time.Now())
	name := owner(t)
	a := New(c, Config{Namespace: ns, Owner: name, Holder: "a", TTL: 10 * time.Second, Clock: clk})
	b := New(c, Config{Namespace: ns, Owner: name, Holder: "b", TTL: 10 * time.Second, Clock: clk})
	mustAcquire(t, a, true)
	clk.Advance(9 * time.Second)
	mustAcquire(t, b, false)
	clk.Advance(2 * time.Second)
	mustAcquire(t, b, true)
	mustAcquire(t, a, false)
	mustAcquire(t, b, true)
	// The old holder's release must not clear the new holder's lease.
	if err := a.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _, err := b.Holder(context.Background()); err != nil || got != "b" {
		t.Errorf("Holder() after the old holder's release = %q, %v; want b", got, err)
	}
}

// TestRenewAfterLostAnswer renews a lease whose last renewal went
// through without its answer being seen (the Lease changed under the
// copy this agent keeps): the next renewal is refused by the
// resourceVersion, and the agent, reading the Lease, finds it its own.
func TestRenewAfterLostAnswer(t *testing.T) {
	c, ns := cluster(t)
	name := owner(t)
	a := New(c, Config{Namespace: ns, Owner: name, Holder: "a", TTL: time.Minute})
	mustAcquire(t, a, true)
	// The same holder's renewal through another copy of the lock: what the
	// lost answer would have shown.
	twin := New(c, Config{Namespace: ns, Owner: name, Holder: "a", TTL: time.Minute})
	mustAcquire(t, twin, true)
	mustAcquire(t, a, true)
	b := New(c, Config{Namespace: ns, Owner: name, Holder: "b", TTL: time.Minute})
	mustAcquire(t, b, false)
}
