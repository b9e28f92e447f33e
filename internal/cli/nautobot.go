package cli

import (
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/lease"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/progress"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sitesync"
	"github.com/ipsync/ipsync/internal/sot"
)

// openNautobot connects to the config's Nautobot.
func (e *env) openNautobot(cfg *config.Config, prog *progress.Display) (*server, error) {
	token, err := e.readToken(cfg, "IPSYNC_NAUTOBOT_TOKEN", cfg.Nautobot.TokenFile)
	if err != nil {
		return nil, err
	}
	n := cfg.Nautobot
	c, err := nautobot.New(nautobot.Config{Settings: sot.Settings{URL: n.URL, Token: token,
		PageSize: n.PageSize, BatchSize: n.BatchSize,
		Concurrency: n.Concurrency, InsecureSkipVerify: n.InsecureSkipVerify, Timeout: n.Timeout, MaxWait: n.MaxWait,
		Tag: cfg.Marker.Tag, OwnerField: cfg.Marker.CustomField, VNIField: cfg.Marker.VNIField},
		APIVersion: n.APIVersion},
		e.logger.With("side", "nautobot"), sot.WithProgress(prog))
	if err != nil {
		return nil, err
	}
	return &server{name: "Nautobot", url: n.URL, boot: c, api: c, tags: lease.NautobotTags, writesProgress: true,
		target: func(sc scope.Scope) (reconcile.Target, sitesync.Follower) { t := c.Target(sc); return t, t }}, nil
}
