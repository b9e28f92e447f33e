package netbox

import (
	"fmt"
	"log/slog"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/sot"
)

// Client talks to one NetBox. It is safe for concurrent use.
type Client struct {
	cfg   Config
	clock clock.Clock
	// holder names this client in the records of its creates on their
	// way (intent.go).
	holder string
	log    *slog.Logger
	// decode decodes the pages of lists (newDecoder).
	decode   func([]byte, any) error
	progress sot.Progress
	api      *httpapi.Client
}

// New checks cfg, fills its defaults, and returns a client built with
// opts (sot.WithHTTPClient, WithClock, WithProgress).
func New(cfg Config, logger *slog.Logger, opts ...sot.Option) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("netbox config: %w", err)
	}
	c := &Client{cfg: cfg, holder: holderName()}
	hc, t := sot.Connect(cfg.Settings, "netbox", logger, opts, httpapi.Config{Auth: cfg.auth(), Identify: true})
	c.api, c.log = httpapi.New(hc), hc.Log
	c.clock, c.progress, c.decode = t.Clock, t.Progress, newDecoder().Decode
	return c, nil
}
