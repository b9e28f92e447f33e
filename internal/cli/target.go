package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/lease"
	"github.com/ipsync/ipsync/internal/netbox"
	"github.com/ipsync/ipsync/internal/progress"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sitesync"
)

// server is the source of truth a config writes to, connected: Nautobot
// or NetBox. openServer is the one place that tells them apart; the
// commands see only this.
type server struct {
	name string // "Nautobot" or "NetBox", for messages
	url  string
	// target reads sc; its follower follows the server's change log.
	target func(sc scope.Scope) (reconcile.Target, sitesync.Follower)
	// savedTarget, where the server can, is the target that applies a
	// saved plan object by object, each write only if the object is as
	// the plan saw it.
	savedTarget func(sc scope.Scope) reconcile.Target
	boot        bootstrapper
	// api and tags keep the agent's lease in the server.
	api  lease.API
	tags lease.TagFields
	// writesProgress: the target reports its writes to the display.
	writesProgress bool
	// refused are the changes an Apply's error says the server refused,
	// one by one.
	refused func(err error) []*bulkwrite.ObjectError
	// reviews, where the server has them, takes writes in a branch a
	// person reviews before they reach main (NetBox with netbox-branching
	// and netbox-change-control); nil on Nautobot.
	reviews *netbox.Client
}

// bootstrapper creates what ipsync needs in a server before the first
// apply: the marker tag and custom fields.
type bootstrapper interface {
	BootstrapPlan(ctx context.Context) ([]string, error)
	Bootstrap(ctx context.Context) ([]string, error)
}

// openServer connects to the server the config names; prog, if not nil,
// is shown its reads and writes.
func (e *env) openServer(cfg *config.Config, prog *progress.Display) (*server, error) {
	if cfg.TargetURL() == "" {
		return nil, fmt.Errorf("no %s: set %s.url in the config", cfg.TargetName(), cfg.Target)
	}
	if cfg.Target == config.TargetNetBox {
		return e.openNetBox(cfg, prog)
	}
	return e.openNautobot(cfg, prog)
}

// useTarget makes a --target naming a server pick that server of the
// config: a config may hold both sections, target: choosing the default.
func useTarget(cfg *config.Config, flag string) {
	if flag == config.TargetNautobot || flag == config.TargetNetBox {
		cfg.Target = flag
	}
}

// openTarget makes the configured server, read within sc, the job's target.
func (e *env) openTarget(cfg *config.Config, sc scope.Scope, j *job) error {
	s, err := e.openServer(cfg, j.progress)
	if err != nil {
		return err
	}
	j.writesProgress = s.writesProgress
	j.target, _ = s.target(sc)
	if s.savedTarget != nil {
		j.savedTarget = s.savedTarget(sc)
	}
	j.targetID, j.server, j.refused, j.reviews = s.url, s.name, s.refused, s.reviews
	j.writeOK = func() error { return cfg.WriteAllowed(s.url) }
	return nil
}

// readToken reads a server's API token from the environment variable
// envVar or the configured file. Never from a flag: flags end up in shell
// history and process lists.
func (e *env) readToken(cfg *config.Config, envVar, file string) (string, error) {
	if t := strings.TrimSpace(e.getenv(envVar)); t != "" {
		return t, nil
	}
	if file == "" {
		return "", fmt.Errorf("no %s token: set %s or %s.token_file in the config", cfg.TargetName(), envVar, cfg.Target)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s token: %w", cfg.Target, err)
	}
	return strings.TrimSpace(string(b)), nil
}
