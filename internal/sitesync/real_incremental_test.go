package sitesync

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/events"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/netbox"
	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
	"github.com/ipsync/ipsync/internal/statefile"
)

// realTarget is a real Nautobot or NetBox as the randomized test uses it.
type realTarget struct {
	target func(sc scope.Scope) reconcile.Target
	// fresh is target from a new client, as a restarted agent has.
	fresh func(sc scope.Scope) reconcile.Target
	// through is fresh with the client's requests sent through the
	// transport wrap makes of the server's own.
	through func(wrap func(http.RoundTripper) http.RoundTripper) func(sc scope.Scope) reconcile.Target
	// call sends a request as a person editing the target would.
	call func(ctx context.Context, method, path string, query url.Values, in, out any) error
	// typesField is the field of a tag that says what it may be used on.
	typesField string
	// shell runs Python in the server's own shell (nautobot-server
	// shell), where a Job's change context can be made; "" for NetBox.
	shell string
}

// eachRealTarget runs fn against every real Nautobot and NetBox the
// environment names.
func eachRealTarget(t *testing.T, fn func(t *testing.T, g realTarget)) {
	eachTargetOf(t, servertest.EachReal, fn)
}

// eachTargetOf runs fn against the Nautobots each gives and NetBox.
func eachTargetOf(t *testing.T, each func(*testing.T, func(*testing.T, *servertest.Server)), fn func(t *testing.T, g realTarget)) {
	each(t, func(t *testing.T, s *servertest.Server) {
		client := func(wrap func(http.RoundTripper) http.RoundTripper) *nautobot.Client {
			c, err := nautobot.New(nautobot.Config{Settings: sot.Settings{URL: s.URL(), Token: s.Token()}}, slog.New(slog.DiscardHandler),
				sot.WithHTTPClient(&http.Client{Transport: wrap(transportOf(s.Client()))}))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		c := client(same)
		g := newRealTarget(t, c, "content_types", func(sc scope.Scope) reconcile.Target { return c.Target(sc) })
		g.fresh = func(sc scope.Scope) reconcile.Target { return client(same).Target(sc) }
		g.through = func(wrap func(http.RoundTripper) http.RoundTripper) func(sc scope.Scope) reconcile.Target {
			c := client(wrap)
			return func(sc scope.Scope) reconcile.Target { return c.Target(sc) }
		}
		if s.Real() {
			g.shell = s.Shell(t)
		}
		fn(t, g)
	})
	t.Run("netbox", func(t *testing.T) {
		s := netboxtest.New(t)
		client := func(wrap func(http.RoundTripper) http.RoundTripper) *netbox.Client {
			c, err := netbox.New(netbox.Config{Settings: sot.Settings{URL: s.URL(), Token: s.Token()}}, slog.New(slog.DiscardHandler),
				sot.WithHTTPClient(&http.Client{Transport: wrap(transportOf(s.Client()))}))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		c := client(same)
		g := newRealTarget(t, c, "object_types", func(sc scope.Scope) reconcile.Target { return c.Target(sc) })
		g.fresh = func(sc scope.Scope) reconcile.Target { return client(same).Target(sc) }
		g.through = func(wrap func(http.RoundTripper) http.RoundTripper) func(sc scope.Scope) reconcile.Target {
			c := client(wrap)
			return func(sc scope.Scope) reconcile.Target { return c.Target(sc) }
		}
		fn(t, g)
	})
}

// same is the transport it is given.
func same(rt http.RoundTripper) http.RoundTripper { return rt }

// transportOf is c's transport, the default one where it has none.
func transportOf(c *http.Client) http.RoundTripper {
	if c == nil || c.Transport == nil {
		return http.DefaultTransport
	}
	return c.Transport
}

// realClient is what the test uses of a Nautobot or NetBox client.
type realClient interface {
	Bootstrap(ctx context.Context) ([]string, error)
	Call(ctx context.Context, method, path string, query url.Values, in, out any) (int, error)
}

func newRealTarget(t *testing.T, c realClient, typesField string, target func(sc scope.Scope) reconcile.Target) realTarget {
	if _, err := c.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	return realTarget{target: target, typesField: typesField, call: func(ctx context.Context, method, path string, query url.Values, in, out any) error {
		_, err := c.Call(ctx, method, path, query, in, out)
		return err
	}}
}

// seedSite makes the site's namespace and VLAN group, owned by the static
// spec named spec, as the static reconciler would.
func (g realTarget) seedSite(t *testing.T, spec, namespace, group string) {
	t.Helper()
	static := resource.StaticOwner(spec)
	seed := []resource.Object{&resource.Namespace{M: resource.Meta{Owner: static}, Name: namespace},
		&resource.VLANGroup{M: resource.Meta{Owner: static}, Name: group}}
	r, err := reconcile.Plan(context.Background(), seed, g.target(scope.Static(static)), plan.Policy{Owner: static, Mode: plan.ModeCreateOnly})
	if err == nil {
		_, err = r.Apply(context.Background())
	}
	if err != nil {
		t.Fatalf("seed the site's namespace and group: %v", err)
	}
}

// liveNetwork is a network the randomized test made, as it stands.
type liveNetwork struct {
	id, subnet string
	vid, third int      // its VLAN id; the third octet of its /24
	ports      []string // port ids
	next       int      // the next host address to give a port
}

// liveSite is one site's side of the randomized test: its Neutron, how
// that Neutron tells of changes, and what the test made there.
type liveSite struct {
	name, physnet string
	vids          []int // free VLAN ids of physnet
	neutron       *realNeutron
	// changedSince: this Neutron answers changed_since, so only deletes
	// are told as events; otherwise every change is.
	changedSince bool
	run          int
	nets         []*liveNetwork
	// gone are the networks deleted so far, whose notifications can be
	// delivered again.
	gone []string
	// shell runs the site's Job-style edits, started at the first.
	shell *shellSession
}

// TestRealIncrementalEqualsWhole makes random changes to real Neutrons
// (networks, ports, renames, deletes) and hand edits to a real target
// (descriptions, deletes of ipsync's objects), restarts the sync now and
// then with changes made while it was down, hands the lease now and then
// to a standby that synced beside it without writing (and takes over
// on the views it kept), tells some Neutron changes
// by no event that names their network (as a router's gateway change, or
// notifications lost around a broker restart, are told), follows some
// hand edits with an event of another network, delivers older
// notifications again after newer ones (delivery is at least once), and
// every third step and at the end checks that syncing by changes left
// nothing to do: a sweep that reads both sides whole writes nothing and
// finds nothing the change logs missed.
// One site's Neutron tells of changes by notifications only (filter
// validation on, as Neutron starts by default), the other's by
// changed_since (started with NEUTRON_FILTER_VALIDATION=false) and of
// deletes by notifications.
func TestRealIncrementalEqualsWhole(t *testing.T) {
	// A new seed each run widens what the runs cover together; the log
	// names it, to repeat a failed run.
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("IPSYNC_RANDOM_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	steps := 6
	if s := os.Getenv("IPSYNC_RANDOM_STEPS"); s != "" {
		fmt.Sscan(s, &steps)
	}
	eachRealTarget(t, func(t *testing.T, g realTarget) {
		sites := []*liveSite{{name: "a11", physnet: "a11-12-network", vids: vidRange(180, 199),
			neutron: neutronAt(t, "IPSYNC_NEUTRON_URL", "the randomized incremental test")}}
		if os.Getenv("IPSYNC_NEUTRON_B_CHANGED_SINCE") != "1" {
			t.Fatal("set IPSYNC_NEUTRON_URL_B to a Neutron started with NEUTRON_FILTER_VALIDATION=false and IPSYNC_NEUTRON_B_CHANGED_SINCE=1")
		}
		sites = append(sites, &liveSite{name: "b22", physnet: "b22-1-network", vids: vidRange(280, 298), changedSince: true,
			neutron: neutronAt(t, "IPSYNC_NEUTRON_URL_B", "the randomized incremental test")})
		// The two sites share nothing but the target: their own Neutron,
		// namespace, groups and owner.
		for _, site := range sites {
			t.Run(site.name, func(t *testing.T) {
				t.Parallel()
				site.neutron = &realNeutron{t: t, base: site.neutron.base}
				rng := rand.New(rand.NewPCG(seed, uint64(len(site.name))))
				t.Logf("seed %d (IPSYNC_RANDOM_SEED repeats a run)", seed)
				runRandomSite(t, g, site, rng, steps)
			})
		}
	})
}

func vidRange(lo, hi int) []int {
	var out []int
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	return out
}

func runRandomSite(t *testing.T, g realTarget, site *liveSite, rng *rand.Rand, steps int) {
	ctx := context.Background()
	site.removeLeftovers()
	owner := resource.NeutronOwner(site.name)
	sc := scope.Site(owner, site.name, []string{site.physnet})
	g.seedSite(t, "random-test", site.name, site.physnet)
	newSyncer := func(target func(scope.Scope) reconcile.Target) *Syncer {
		src, err := neutron.NewReader(ctx, neutron.Config{Endpoint: site.neutron.base, Auth: neutron.AuthNoauth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return newTestSyncer(Config{Map: neutron.MapConfig{Site: site.name, Namespace: site.name}, Policy: randomSitePolicy(owner),
			Notified: true, Scope: sc, Rescope: rescopeOf(target)}, src, target(sc))
	}
	s := newSyncer(g.target)
	// The agent saves its state after syncs now and then (at most once a
	// minute), and when it stops; a killed agent resumes from an older one.
	statePath := filepath.Join(t.TempDir(), site.name+".state.json")
	header := statefile.Header{Format: statefile.Format, Version: "test", Site: site.name, Owner: string(owner), Target: "random"}
	// save writes the state; a clean stop keeps Neutron too (the agent
	// leaves a marker in its queue then). marker is the marker the queue
	// still holds, of the last clean stop, until an agent consumes it.
	marker := ""
	save := func(step string, stop bool) {
		t.Helper()
		saved, view, err := s.Save()
		if err != nil {
			t.Fatalf("%s: save the state: %v", step, err)
		}
		st := &statefile.State{Header: header, SavedAt: time.Now(), Scope: statefile.ScopeOf(saved), View: view}
		if n, ok := s.SaveNeutron(); ok && stop {
			st.Neutron = &statefile.Neutron{Snapshot: n.Snapshot, LastRead: n.LastRead, Marker: events.Marker{Nonce: step}}
			marker = step
		}
		if err := statefile.Save(statePath, st); err != nil {
			t.Fatal(err)
		}
	}
	// restart is a new process: a new client of the target, following on
	// from the saved state where there is one, and from its Neutron if
	// it kept one and the queue still holds that state's marker (then it
	// kept every notification since: told names the networks they name).
	// A state saved at a clean stop that another agent has run on since
	// (a killed agent resuming from an older file) gets no such word: its
	// marker was consumed. It says whether it resumed the target, and
	// Neutron.
	restart := func(step string, from string, told []string) (bool, bool) {
		t.Helper()
		s = newSyncer(g.fresh)
		live := marker
		marker = "" // the new agent consumes the queue
		if from == "" {
			return false, false
		}
		st, err := statefile.Load(from)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if err := st.Usable(header, sc, time.Now(), changelog.MaxGap); err != nil {
			t.Fatalf("%s: the saved state is not usable: %v", step, err)
		}
		if err := s.Resume(ctx, st.Scope.Scope(), st.View); err != nil {
			t.Fatalf("%s: resume: %v", step, err)
		}
		if st.Neutron == nil {
			return true, false
		}
		kept := st.Neutron.Marker.Nonce == live
		proof := make(chan Proof, 1)
		proof <- Proof{Kept: kept, Networks: told, Reason: "the saved state's marker is no longer in the queue"}
		s.ResumeNeutron(NeutronState{Snapshot: st.Neutron.Snapshot, LastRead: st.Neutron.LastRead, Networks: st.Neutron.Networks}, proof)
		return true, kept
	}
	// took is where the step's time goes; total is the run's.
	took, total := stepTimes{}, stepTimes{}
	sweep := func(step string) {
		t.Helper()
		defer took.since("sweep", time.Now())
		out, err := s.Sync(ctx, Request{Sweep: true})
		if err != nil {
			t.Fatalf("%s: sweep: %v", step, err)
		}
		took.requests("sweep", out.Reads)
		if out.Writes > 0 || len(out.Misses["neutron"])+len(out.Misses["target"]) > 0 {
			t.Errorf("%s: the sweep wrote %d objects and found missed by following changes: neutron %q, target %q",
				step, out.Writes, out.Misses["neutron"], out.Misses["target"])
		}
	}
	if _, err := s.Sync(ctx, Request{Sweep: true}); err != nil {
		t.Fatalf("first sweep: %v", err)
	}
	save("first sweep", false)
	// sb is a second agent of the site, a standby: told of every change
	// the holder is told of (a queue of its own), it syncs as the holder
	// does but writes nothing, and takes the lease over now and then,
	// planning on the views it kept.
	sb := newSyncer(g.fresh)
	standby := func(step string, req Request) {
		t.Helper()
		defer took.since("standby", time.Now())
		req.Standby = true
		out, err := sb.Sync(ctx, req)
		if err != nil {
			t.Fatalf("%s: the standby's sync: %v", step, err)
		}
		took.requests("standby", out.Reads)
		if out.Writes > 0 || out.Plan != nil {
			t.Fatalf("%s: the standby wrote %d objects", step, out.Writes)
		}
	}
	standby("the standby's start", Request{Sweep: true})
	defer func() { t.Logf("%d steps: %s", steps, total) }()
	for i := range steps {
		took = stepTimes{}
		t0 := time.Now()
		op, touched, unattributed := site.randomChange(t, g, rng)
		took.since("change", t0)
		step := fmt.Sprintf("step %d (%s)", i, op)
		resumed, neutronResumed := false, false
		// told are the networks a change while the holder was away named
		// in the standby's queue.
		var told []string
		if op == "takeover" {
			// The holder stops or loses the lease, a change comes, and the
			// standby takes over; the old holder stays on as the standby.
			var by string
			by, told = site.randomHandOrNeutronChange(t, g, rng)
			s, sb = sb, s
			step += ": " + by
		}
		if op == "restart" {
			// A change while no sync runs, picked up by the restarted
			// one, which resumes from the state saved when it stopped,
			// or (killed) from an older one, or has none.
			how := rng.IntN(3)
			if how == 0 {
				save(step, true)
			}
			var by string
			by, told = site.randomHandOrNeutronChange(t, g, rng)
			touched = nil
			from := statePath
			if how == 2 {
				from = ""
			}
			resumed, neutronResumed = restart(step, from, told)
			step += map[int]string{0: ", stopped and resumed", 1: ", killed and resumed from an older state", 2: ", restarted without a state"}[how] + ": " + by
			// A killed agent's Neutron is not saved, and nothing vouches
			// for its queue: the first sync reads Neutron whole.
			unattributed = resumed && !neutronResumed
		}
		// What the agent does: a sync of the networks events named (or,
		// for a change no event could narrow to networks, of the whole
		// site on a whole read of Neutron), then the periodic one of the
		// whole site, by what changed.
		t0 = time.Now()
		switch {
		case op == "takeover":
			// Taking the lease over plans the whole site at once, with
			// the networks the standby was told of and had not synced.
			out, err := s.Sync(ctx, Request{Full: true, Networks: told})
			if err != nil {
				t.Fatalf("%s: the takeover's sync: %v", step, err)
			}
			took.requests("narrowed", out.Reads)
			if out.Whole["neutron"] || out.Whole["target"] {
				t.Errorf("%s: the takeover read whole %v; want it to plan on the views the standby kept", step, out.Whole)
			}
		case unattributed && (s.last != nil || resumed):
			out, err := s.Sync(ctx, Request{Full: true, NeutronWhole: true})
			if err != nil {
				t.Fatalf("%s: sync of an unattributed change: %v", step, err)
			}
			took.requests("narrowed", out.Reads)
			if resumed && out.Whole["target"] {
				t.Errorf("%s: the first sync after resuming read the target whole", step)
			}
		case len(touched) > 0 && s.last != nil:
			if old, ok := site.olderNotification(rng); ok {
				// Delivery is at least once, and a redelivery (after a
				// reconnect, or a requeue at a stop) comes after newer
				// notifications: an older one again, in any order.
				touched = append(slices.Clone(touched), old)
				rng.Shuffle(len(touched), func(i, j int) { touched[i], touched[j] = touched[j], touched[i] })
				step += ", with an older notification delivered again"
			}
			out, err := s.Sync(ctx, Request{Networks: touched})
			if err != nil {
				t.Fatalf("%s: sync of %v: %v", step, touched, err)
			}
			took.requests("narrowed", out.Reads)
		}
		took.since("narrowed", t0)
		t0 = time.Now()
		out, err := s.Sync(ctx, Request{})
		if err != nil {
			t.Fatalf("%s: periodic sync: %v", step, err)
		}
		took.since("periodic", t0)
		took.requests("periodic", out.Reads)
		// The standby was told what the holder was, and syncs as it does.
		switch {
		case len(told) > 0:
			standby(step, Request{Networks: told})
		case unattributed && op != "restart":
			standby(step, Request{Full: true, NeutronWhole: true})
		case len(touched) > 0 && op != "takeover":
			standby(step, Request{Networks: touched})
		}
		// Its periodic sync runs every interval, not after every event:
		// one step in three, so that a takeover often follows on from
		// a target log the standby last read steps ago.
		if i%3 == 1 {
			standby(step, Request{})
		}
		if neutronResumed && (out.Whole["neutron"] || out.Whole["target"]) {
			t.Errorf("%s: the first sync after a clean stop read whole %v", step, out.Whole)
		}
		if rng.IntN(2) == 0 {
			save(step, false)
		}
		// What following the changes missed stays missed until a sweep:
		// one every third step finds it, for a third of the reads.
		if i%3 == 2 || i == steps-1 {
			sweep(step)
		}
		t.Logf("%s: periodic sync read whole %v, objects %v, wrote %d; %s", step, out.Whole, out.Objects, out.Writes, took)
		total.add(took)
	}
}

// randomSitePolicy is the default policy without the mass-delete guard: a
// random site holds a few networks, so deleting one (or, across a restart,
// the last one) is most of what it owns, which the guard rightly refuses
// in production. The guard has tests of its own; this one is about
// following changes.
func randomSitePolicy(owner resource.Owner) plan.Policy {
	p := plan.DefaultPolicy(owner)
	p.AllowMassDelete = true
	return p
}

// randomChange makes one random change and returns what it was, the
// networks an agent's events would name, and whether the events could
// name none (a notification without its network, or notifications lost
// while the broker was away, which the consumer's resync stands for).
func (site *liveSite) randomChange(t *testing.T, g realTarget, rng *rand.Rand) (string, []string, bool) {
	switch rng.IntN(8) {
	case 0:
		if rng.IntN(2) == 0 {
			return "takeover", nil, false
		}
		return "restart", nil, false
	case 1:
		if g.shell != "" && rng.IntN(2) == 0 {
			return site.jobEdit(t, g, rng), nil, false
		}
		op, touched := site.handEdit(t, g, rng)
		return op, touched, false
	case 2:
		// A port of some network changes status as a person edits the
		// target: the sync of that network reads the edit in the log but
		// plans only the network, and the next sync must plan the edit.
		op, _ := site.handEdit(t, g, rng)
		if len(site.nets) == 0 {
			return op, nil, false
		}
		return op + ", then an event of a network", []string{site.nets[rng.IntN(len(site.nets))].id}, false
	case 3:
		op, _ := site.randomNeutronChange(t, rng)
		return op + ", told by no event that names it", nil, true
	default:
		op, touched := site.randomNeutronChange(t, rng)
		return op, touched, false
	}
}

// randomHandOrNeutronChange is a change in Neutron or, one time in
// three, by hand in the target.
func (site *liveSite) randomHandOrNeutronChange(t *testing.T, g realTarget, rng *rand.Rand) (string, []string) {
	if rng.IntN(3) == 0 {
		return site.handEdit(t, g, rng)
	}
	return site.randomNeutronChange(t, rng)
}

// randomNeutronChange creates, grows, shrinks, renames or deletes a
// network. Events name the network changed; where changed_since tells of
// changes, only deletes are.
func (site *liveSite) randomNeutronChange(t *testing.T, rng *rand.Rand) (string, []string) {
	n := site.neutron
	op := rng.IntN(5)
	if len(site.nets) == 0 || (op == 0 && len(site.vids) > 0) {
		site.run++
		vid := site.vids[rng.IntN(len(site.vids))]
		site.vids = slices.DeleteFunc(site.vids, func(v int) bool { return v == vid })
		net := &liveNetwork{vid: vid, third: vid - 150, next: 10}
		net.id = n.create("networks", map[string]any{"name": fmt.Sprintf("rand-%s-%d", site.name, vid), "tenant_id": "p1",
			"provider:network_type": "vlan", "provider:physical_network": site.physnet, "provider:segmentation_id": vid})
		net.subnet = n.create("subnets", map[string]any{"network_id": net.id, "cidr": net.cidr(), "ip_version": 4, "tenant_id": "p1"})
		site.addPort(net)
		site.nets = append(site.nets, net)
		return "network created", site.told(false, net.id)
	}
	net := site.nets[rng.IntN(len(site.nets))]
	switch {
	case op == 1 || op == 0:
		site.addPort(net)
		return "port added", site.told(false, net.id)
	case op == 2 && len(net.ports) > 0:
		i := rng.IntN(len(net.ports))
		n.remove("ports", net.ports[i])
		net.ports = slices.Delete(net.ports, i, i+1)
		return "port deleted", site.told(true, net.id)
	case op == 3:
		n.call(http.MethodPut, "/networks/"+net.id, map[string]any{"network": map[string]any{"name": fmt.Sprintf("rand-%s-%d-r%d", site.name, net.vid, rng.IntN(100))}}, nil)
		return "network renamed", site.told(false, net.id)
	default:
		for _, p := range net.ports {
			n.remove("ports", p)
		}
		n.remove("networks", net.id)
		site.gone = append(site.gone, net.id)
		site.nets = slices.DeleteFunc(site.nets, func(x *liveNetwork) bool { return x == net })
		site.vids = append(site.vids, net.vid)
		return "network deleted", site.told(true, net.id)
	}
}

// olderNotification is, one time in four, the network of an earlier
// notification, of a network still there or deleted.
func (site *liveSite) olderNotification(rng *rand.Rand) (string, bool) {
	n := len(site.nets) + len(site.gone)
	if n == 0 || rng.IntN(4) != 0 {
		return "", false
	}
	i := rng.IntN(n)
	if i < len(site.nets) {
		return site.nets[i].id, true
	}
	return site.gone[i-len(site.nets)], true
}

// told is the networks an event names for a change: every change's where
// notifications are the only word, only deletes' where changed_since
// tells the rest.
func (site *liveSite) told(deleted bool, id string) []string {
	if site.changedSince && !deleted {
		return nil
	}
	return []string{id}
}

func (net *liveNetwork) cidr() string { return fmt.Sprintf("10.200.%d.0/24", net.third) }

func (site *liveSite) addPort(net *liveNetwork) {
	ip := fmt.Sprintf("10.200.%d.%d", net.third, net.next)
	net.next++
	net.ports = append(net.ports, site.neutron.create("ports", map[string]any{"network_id": net.id, "tenant_id": "p1",
		"fixed_ips": []map[string]any{{"subnet_id": net.subnet, "ip_address": ip}}}))
}

// handEdit changes or deletes one of ipsync's objects in the target, as a
// person would; the change log tells the sync, which puts it back.
func (site *liveSite) handEdit(t *testing.T, g realTarget, rng *rand.Rand) (string, []string) {
	ctx := context.Background()
	var page struct {
		Results []struct {
			ID any `json:"id"`
		} `json:"results"`
	}
	kinds := []string{"/api/ipam/vlans/", "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"}
	path := kinds[rng.IntN(len(kinds))]
	if err := g.call(ctx, http.MethodGet, path, url.Values{"cf_ipsync_owner": {"neutron:" + site.name}, "limit": {"1000"}}, nil, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Results) == 0 {
		return "hand edit: nothing to edit", nil
	}
	id := fmt.Sprint(page.Results[rng.IntN(len(page.Results))].ID)
	if path == "/api/ipam/ip-addresses/" && rng.IntN(2) == 0 {
		if err := g.call(ctx, http.MethodDelete, path+id+"/", nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		return "hand delete of an address", nil
	}
	if err := g.call(ctx, http.MethodPatch, path+id+"/", nil, map[string]any{"description": fmt.Sprintf("by hand %d", rng.IntN(1000))}, nil); err != nil {
		t.Fatal(err)
	}
	return "hand edit of " + path, nil
}

// jobEdit changes one of ipsync's addresses twice in one change context,
// as a Job or a script does: Nautobot rewrites the address's change
// record in place, with the second change, or with a delete.
func (site *liveSite) jobEdit(t *testing.T, g realTarget, rng *rand.Rand) string {
	then := map[bool]string{true: "v.delete()", false: `v.description = "job, second"
    v.validated_save()`}[rng.IntN(2) == 0]
	script := fmt.Sprintf(`
from django.contrib.auth import get_user_model
from nautobot.extras.context_managers import web_request_context
from nautobot.ipam.models import IPAddress
user = get_user_model().objects.filter(is_superuser=True).first()
v = IPAddress.objects.filter(_custom_field_data__ipsync_owner=%q).order_by("?").first()
if v is not None:
  with web_request_context(user, context_detail="ipsync-random-test"):
    v.description = "job, first"
    v.validated_save()
    %s
print("DONE")
`, "neutron:"+site.name, then)
	if site.shell == nil {
		site.shell = startShell(t, g.shell)
	}
	if out, err := site.shell.run(script); err != nil || !strings.Contains(out, "DONE") {
		t.Fatalf("a Job's change context in nautobot-server shell: %v\n%s", err, out)
	}
	if strings.Contains(then, "delete") {
		return "a Job edits an address, then deletes it"
	}
	return "a Job edits an address twice"
}

// removeLeftovers deletes the networks a run stopped half way left behind,
// whose VLAN ids this run would take.
func (site *liveSite) removeLeftovers() {
	var nets struct {
		Networks []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"networks"`
	}
	site.neutron.call(http.MethodGet, "/networks?fields=id&fields=name", nil, &nets)
	for _, n := range nets.Networks {
		if !strings.HasPrefix(n.Name, "rand-"+site.name+"-") {
			continue
		}
		var ports struct {
			Ports []struct {
				ID string `json:"id"`
			} `json:"ports"`
		}
		site.neutron.call(http.MethodGet, "/ports?fields=id&network_id="+n.ID, nil, &ports)
		for _, p := range ports.Ports {
			site.neutron.remove("ports", p.ID)
		}
		site.neutron.remove("networks", n.ID)
	}
}
