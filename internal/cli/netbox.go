package cli

import (
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/lease"
	"github.com/ipsync/ipsync/internal/netbox"
	"github.com/ipsync/ipsync/internal/progress"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sitesync"
	"github.com/ipsync/ipsync/internal/sot"
)

// openNetBox connects to the config's NetBox.
func (e *env) openNetBox(cfg *config.Config, prog *progress.Display) (*server, error) {
	token, err := e.readToken(cfg, "IPSYNC_NETBOX_TOKEN", cfg.NetBox.TokenFile)
	if err != nil {
		return nil, err
	}
	n := cfg.NetBox
	c, err := netbox.New(netbox.Config{Settings: sot.Settings{URL: n.URL, Token: token,
		PageSize: n.PageSize, BatchSize: n.BatchSize,
		Concurrency: n.Concurrency, InsecureSkipVerify: n.InsecureSkipVerify, Timeout: n.Timeout, MaxWait: n.MaxWait,
		Tag: cfg.Marker.Tag, OwnerField: cfg.Marker.CustomField, VNIField: cfg.Marker.VNIField},
		RequestDeadline: n.RequestDeadline, RIR: n.RIR, LocationScope: n.LocationScope},
		e.logger.With("side", "netbox"), sot.WithProgress(prog))
	if err != nil {
		return nil, err
	}
	return &server{name: "NetBox", url: n.URL, boot: c, api: c, tags: lease.NetBoxTags, writesProgress: true,
		target:      func(sc scope.Scope) (reconcile.Target, sitesync.Follower) { t := c.Target(sc); return t, t },
		savedTarget: func(sc scope.Scope) reconcile.Target { return c.SavedTarget(sc) },
		refused:     refusedByNetBox, reviews: c}, nil
}

// refusedByNetBox are the changes NetBox refused, as its Apply's error
// names them.
func refusedByNetBox(err error) []*netbox.ObjectError {
	var refused []*netbox.ObjectError
	walk(err, func(e error) {
		if oe, ok := e.(*netbox.ObjectError); ok {
			refused = append(refused, oe)
		}
	})
	return refused
}
