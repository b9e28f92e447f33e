package nautobot

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Option changes how a client is built.
type Option func(*Client)

// WithHTTPClient makes the client send requests with h (its transport and
// TLS settings are used as given).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.httpCfg.HTTP = h } }

// WithClock sets the clock retries wait on; tests inject one that does not
// sleep.
func WithClock(clk clock.Clock) Option { return func(c *Client) { c.httpCfg.Clock = clk } }

// Progress learns how far long reads and writes have got, for a display.
type Progress = sot.Progress

// WithProgress reports the progress of reads and writes to p.
func WithProgress(p Progress) Option { return func(c *Client) { c.progress = p } }

// Client talks to one Nautobot. It is safe for concurrent use.
type Client struct {
	cfg Config
	log *slog.Logger
	// httpCfg is what api was built from; options edit it before.
	httpCfg httpapi.Config
	api     *httpapi.Client

	// connMu serializes connecting; server is set once connected.
	connMu sync.Mutex
	server *server

	progress Progress

	mu    sync.Mutex
	known knownIDs // ids learnt by List and Apply, for writing references
	seen  *lookups // the lookups read last, for Check
}

// knownIDs maps names to ids: target-owned kinds by name, and ipsync's
// namespaces, VLAN groups and VLANs by natural key.
type knownIDs struct {
	refs map[resource.Kind]map[string]string
	own  map[resource.Key]string
}

// New checks cfg, fills its defaults, and returns a client.
func New(cfg Config, logger *slog.Logger, opts ...Option) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("nautobot config: %w", err)
	}
	base, _ := url.Parse(strings.TrimRight(cfg.URL, "/"))
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{cfg: cfg, log: logger.With("component", "nautobot", "host", base.Host), progress: sot.NoProgress{},
		known: knownIDs{own: map[resource.Key]string{}}}
	c.httpCfg = httpapi.Config{Base: base, Auth: "Token " + cfg.Token, Server: "nautobot",
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, MaxWait: cfg.MaxWait, Log: c.log}
	for _, o := range opts {
		o(c)
	}
	if c.httpCfg.HTTP == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipVerify}
		tr.MaxIdleConnsPerHost = cfg.Concurrency + 1
		c.httpCfg.HTTP = &http.Client{Transport: tr}
	}
	c.api = httpapi.New(c.httpCfg)
	if cfg.InsecureSkipVerify {
		c.log.Warn("TLS certificate verification is off")
	}
	return c, nil
}

// ownerMarker is the marker the client writes and reads.
func (c *Client) ownerMarker() ownership.Marker {
	return ownership.Marker{Tag: c.cfg.Tag, OwnerField: c.cfg.OwnerField}
}
