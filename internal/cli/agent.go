package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/events"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sitesync"
	"github.com/ipsync/ipsync/internal/statefile"
)

func newAgent(e *env) *cobra.Command {
	var configPath, siteName, listen string
	var dryRun bool
	cmd := &cobra.Command{
		Use: "agent --config F --site S",
		Example: `  ipsync agent --config /etc/ipsync/ipsync.yaml --site a11
  ipsync agent --config ipsync.yaml --site a11 --dry-run --listen 127.0.0.1:9479 --log-format text`,
		Short: "Run the per-site daemon: periodic and event-driven sync of the site's Neutron into the target (Nautobot or NetBox)",
		Long: `The agent reconciles the site's Neutron into the target (the config's Nautobot or
NetBox) on start and then every agent.interval (default 10m, with jitter), and within
about a second of Neutron's notifications (agent.rabbitmq). One agent per owner writes
at a time (a lease held in the target); a second one waits. For a site with
segment_ranges or subnet_pools, every sync of the whole site also writes the spec's
segment ranges and subnet pools of the site to its Neutron, as apply --site S --target
neutron --commit does (--dry-run: plans them only). It serves /metrics,
/healthz, /readyz and a status page on agent.listen (default 127.0.0.1:9478). SIGTERM
stops it cleanly.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configPath == "" || siteName == "" {
				return usagef("agent needs --config and --site")
			}
			cfg, err := loadConfig(configPath)
			if err != nil {
				return err
			}
			site, err := cfg.Site(siteName)
			if err != nil {
				return usage(fmt.Errorf("--site: %w", err))
			}
			// From here on the agent section is the site's: the file's
			// with the site's own agent keys over it.
			cfg.Agent = cfg.AgentFor(site)
			if listen != "" {
				cfg.Agent.Listen = listen
			}
			return e.runAgent(cmd.Context(), cfg, site, dryRun)
		},
	}
	cmd.Flags().StringVarP(&configPath, "config", "c", "", "config file (ipsync.yaml) (required)")
	cmd.Flags().StringVar(&siteName, "site", "", "the site this agent syncs (required)")
	cmd.Flags().StringVar(&listen, "listen", "", "HTTP address for metrics and status (default from config, 127.0.0.1:9478)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "plan and report drift, never write")
	return cmd
}

func (e *env) runAgent(ctx context.Context, cfg *config.Config, site *config.Site, dryRun bool) error {
	reg := newRegistry()

	owner := resource.NeutronOwner(site.Name)
	s, server, err := e.siteSyncer(ctx, cfg, site, dryRun)
	if err != nil {
		return err
	}
	lease, err := newLease(server, cfg, owner, e.logger.With("site", site.Name))
	if err != nil {
		return err
	}
	toNeutron, err := e.newSpecToNeutron(ctx, cfg, site, dryRun)
	if err != nil {
		return err
	}
	syncer := siteSyncer{s: s, clock: clock.Real(), toNeutron: toNeutron}
	ac := agent.Config{Site: site.Name, Version: versionText(), Sides: []string{"neutron", strings.ToLower(server.name)}, Target: server.url, Interval: cfg.Agent.Interval, Sweep: cfg.Agent.Sweep, Jitter: cfg.Agent.Jitter,
		LeaseTTL: cfg.Agent.LeaseTTL, LeaseRenew: cfg.Agent.LeaseRenew, DryRun: dryRun, RangeThreshold: cfg.Agent.RangeThreshold}
	ranges := rangehealth.NewHistory()
	// A dry run writes nothing anywhere, its state file included: it
	// would overwrite the state of the agent that writes, if both ran
	// on one host with one config.
	if cfg.Agent.StateDir != "" && dryRun {
		e.logger.Info("dry run: the state directory is neither read nor written; every start is a sweep", "site", site.Name, "state_dir", cfg.Agent.StateDir)
	}
	if cfg.Agent.StateDir != "" && !dryRun {
		syncer.state = &siteState{path: statefile.Path(cfg.Agent.StateDir, site.Name), s: s, clock: syncer.clock, log: e.logger.With("site", site.Name),
			header: statefile.Header{Format: statefile.Format, Version: Version, Site: site.Name, Owner: string(owner), Target: server.url}, ranges: ranges}
		ac.Start = syncer.state.resume(ctx, siteScope(site, nil), cfg.Agent.RabbitMQ.URL != "")
		ac.LastSweep = syncer.state.lastSweep
	}
	// The agent names its site in every line it logs; given a logger that
	// does already, each line would say it twice.
	a := agent.New(ac, syncer, lease, e.logger, reg, agent.WithRangeHistory(ranges))
	stopServing, err := serveStatus(a.Handler(), cfg.Agent.Listen, e.logger.With("site", site.Name), dryRun)
	if err != nil {
		return err
	}
	defer stopServing()

	// The agent stops after the notifications it was handed: once the
	// consumer stopped, what it took from the queue goes on to the
	// agent, which keeps what no sync finished for the next start.
	agentCtx, stopAgent := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAgent()
	triggers := make(chan agent.Trigger, 16)
	var ev *siteEvents
	if cfg.Agent.RabbitMQ.URL != "" {
		q := ownQueue(cfg.Agent.RabbitMQ.Queue, site.Name, syncer.state)
		if ev, err = e.startEvents(ctx, agentCtx, cfg, site, a, q, triggers, syncer.state.resumeOptions()); err != nil {
			return err
		}
	} else {
		a.SetCondition("rabbitmq", true, "not configured: periodic reconcile only")
	}
	drained := make(chan bool, 1)
	go func() {
		<-ctx.Done()
		drained <- ev != nil && ev.waitDrained(drainWait)
		stopAgent()
	}()
	runErr := a.Run(agentCtx, triggers)
	if syncer.state != nil {
		// Notifications taken from the queue but not handed on are
		// nowhere: without them all, the next start reads Neutron whole.
		var mark func(context.Context) (events.Marker, error)
		select {
		case ok := <-drained:
			if ok {
				mark = ev.consumer.Mark
			}
		default:
		}
		syncer.state.stop(context.WithoutCancel(ctx), a.Stopped(), mark)
	}
	return runErr
}

// serveStatus serves an agent's (or the reconciler's) metrics, health and
// status page on listen until the returned function is called.
func serveStatus(h http.Handler, listen string, log *slog.Logger, dryRun bool) (func(), error) {
	ln, err := net.Listen("tcp", listen)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("agent listen: %w: another agent of this host may have it; give each site its own address (sites[].agent.listen in the config, or --listen)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("agent listen: %w (agent.listen, or --listen)", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server stopped", "err", err)
		}
	}()
	log.Info("serving metrics, health and status", "listen", ln.Addr().String(), "dry_run", dryRun)
	return func() {
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}, nil
}

// siteSyncer is the site's sync as the agent runs it, and the server it
// writes to.
func (e *env) siteSyncer(ctx context.Context, cfg *config.Config, site *config.Site, dryRun bool) (*sitesync.Syncer, *server, error) {
	src, err := e.openSite(ctx, site)
	if err != nil {
		return nil, nil, err
	}
	logger := e.logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// The target's lines (a retry, what a write applied) name the site
	// too: one central server hears from many agents.
	es := *e
	es.logger = logger.With("site", site.Name)
	server, err := es.openServer(cfg, nil)
	if err != nil {
		return nil, nil, err
	}
	if !dryRun {
		if err := cfg.WriteAllowed(server.url); err != nil {
			return nil, nil, &exitError{ExitRefused, fmt.Errorf("%w (--dry-run only reads)", err)}
		}
	}
	owner := resource.NeutronOwner(site.Name)
	sc := siteScope(site, nil)
	target, follower := server.target(sc)
	s := sitesync.New(sitesync.Config{Map: src.mapConfig(nil), Policy: cfg.PlanPolicy(owner), DryRun: dryRun, TargetSide: strings.ToLower(server.name),
		Notified: cfg.Agent.RabbitMQ.URL != "", Log: logger.With("site", site.Name), Scope: sc, Rescope: server.target},
		src.reader, target, follower)
	return s, server, nil
}

// drainWait bounds how long a stopping agent waits for the notifications
// already taken from the queue to reach it; normally a coalescing window.
const drainWait = 5 * time.Second

// siteEvents is the site's notification consumer and what it handed on.
type siteEvents struct {
	consumer *events.Consumer
	// drained is closed once everything the consumer took from the
	// queue was handed to the agent, after the consumer stopped.
	drained chan struct{}
}

// waitDrained waits up to limit for the pipeline to drain and says
// whether it did.
func (ev *siteEvents) waitDrained(limit time.Duration) bool {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-ev.drained:
		return true
	case <-t.C:
		return false
	}
}

// startEvents consumes the site's Neutron notifications from the agent's
// own queue q until ctx ends, and turns bursts of them into agent
// triggers on out until agentCtx ends.
func (e *env) startEvents(ctx, agentCtx context.Context, cfg *config.Config, site *config.Site, a *agent.Agent, q queue,
	out chan<- agent.Trigger, opts []events.Option) (*siteEvents, error) {
	rc := cfg.Agent.RabbitMQ
	u, err := withPassword(rc.URL, e.getenv("IPSYNC_RABBITMQ_PASSWORD"), rc.PasswordFile)
	if err != nil {
		return nil, err
	}
	ec := events.Config{URL: u, Exchange: rc.Exchange, Topic: rc.Topic, Queue: q.name, KeepFor: q.keepFor}.WithDefaults()
	if err := ec.Validate(); err != nil {
		return nil, fmt.Errorf("agent.rabbitmq: %w", err)
	}
	consumer := events.NewConsumer(ec, e.logger.With("site", site.Name), append(opts,
		events.WithStateHook(func(connected bool, err error) {
			switch {
			case connected:
				a.SetCondition("rabbitmq", true, "consuming "+ec.RedactedURL())
			case err != nil:
				a.SetCondition("rabbitmq", false, "unreachable, retrying: "+err.Error())
			default:
				a.SetCondition("rabbitmq", true, "stopped consuming")
			}
		}))...)
	ev := &siteEvents{consumer: consumer, drained: make(chan struct{})}
	evs := make(chan events.Event, 1024)
	batches := make(chan events.Batch, 16)
	go func() {
		_ = consumer.Run(ctx, evs)
		close(evs)
	}()
	go func() {
		events.Coalesce(agentCtx, evs, cfg.Agent.Coalesce, time.Second, batches)
		close(batches)
	}()
	go func() {
		defer close(ev.drained)
		for b := range batches {
			t := agent.Trigger{NetworkIDs: b.NetworkIDs, RangesChanged: b.RangeChanged, Unattributed: b.Unattributed,
				Full: b.Unattributed, Events: b.Events, Oldest: b.Oldest}
			select {
			case out <- t:
			case <-agentCtx.Done():
				return
			}
		}
	}()
	return ev, nil
}

// withPassword puts the RabbitMQ password, which never sits in the config,
// into the URL.
func withPassword(raw, fromEnv, file string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("agent.rabbitmq.url: %w", err)
	}
	pw := fromEnv
	if pw == "" && file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("agent.rabbitmq.password_file: %w", err)
		}
		pw = strings.TrimSpace(string(b))
	}
	if pw != "" && u.User != nil {
		u.User = url.UserPassword(u.User.Username(), pw)
	}
	return u.String(), nil
}

var _ sitesync.Source = (*neutron.Reader)(nil)
