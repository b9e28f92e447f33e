package nautobot

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/sot"
)

// Client talks to one Nautobot. It is safe for concurrent use.
type Client struct {
	cfg Config
	log *slog.Logger
	// decode decodes the pages of lists (newDecoder).
	decode func([]byte, any) error
	// httpCfg is what api was built from.
	httpCfg httpapi.Config
	api     *httpapi.Client

	// connMu serializes connecting; server is set once connected.
	connMu sync.Mutex
	server *server

	progress sot.Progress
}

// New checks cfg, fills its defaults, and returns a client built with
// opts (sot.WithHTTPClient, WithClock, WithProgress).
func New(cfg Config, logger *slog.Logger, opts ...sot.Option) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("nautobot config: %w", err)
	}
	c := &Client{cfg: cfg}
	hc, t := sot.Connect(cfg.Settings, "nautobot", logger, opts, httpapi.Config{Auth: "Token " + cfg.Token})
	c.httpCfg, c.api, c.log = hc, httpapi.New(hc), hc.Log
	c.progress, c.decode = t.Progress, newDecoder().Decode
	return c, nil
}

// ownerMarker is the marker the client writes and reads.
func (c *Client) ownerMarker() ownership.Marker {
	return ownership.Marker{Tag: c.cfg.Tag, OwnerField: c.cfg.OwnerField}
}
