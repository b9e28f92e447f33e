package netbox

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Option changes how a client is built.
type Option func(*Client)

// WithHTTPClient makes the client send requests with h (its transport and
// TLS settings are used as given).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithClock sets the clock retries wait on; tests inject one that does not
// sleep.
func WithClock(clk clock.Clock) Option { return func(c *Client) { c.clock = clk } }

// Progress learns how far long reads and writes have got, for a display.
type Progress = sot.Progress

// WithProgress reports the progress of reads and writes to p.
func WithProgress(p Progress) Option { return func(c *Client) { c.progress = p } }

// Client talks to one NetBox. It is safe for concurrent use.
type Client struct {
	cfg   Config
	http  *http.Client
	clock clock.Clock
	// holder names this client in the records of its creates on their
	// way (intent.go).
	holder   string
	log      *slog.Logger
	progress Progress
	api      *httpapi.Client

	mu   sync.Mutex
	own  map[resource.Key]int // ids of VRFs, VLAN groups and VLANs, learnt by List and Apply
	seen *lookups             // the lookups read last, for Check and for writing references
}

// New checks cfg, fills its defaults, and returns a client.
func New(cfg Config, logger *slog.Logger, opts ...Option) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("netbox config: %w", err)
	}
	base, _ := url.Parse(strings.TrimRight(cfg.URL, "/"))
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{cfg: cfg, clock: clock.Real(), log: logger.With("component", "netbox", "host", base.Host),
		progress: sot.NoProgress{}, own: map[resource.Key]int{}, holder: holderName()}
	for _, o := range opts {
		o(c)
	}
	if c.http == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipVerify}
		tr.MaxIdleConnsPerHost = cfg.Concurrency + 1
		c.http = &http.Client{Transport: tr}
	}
	if cfg.InsecureSkipVerify {
		c.log.Warn("TLS certificate verification is off")
	}
	c.api = httpapi.New(httpapi.Config{Base: base, HTTP: c.http, Auth: cfg.auth(), Server: "netbox",
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, MaxWait: cfg.MaxWait, Clock: c.clock, Log: c.log,
		Identify: true})
	return c, nil
}

func (c *Client) learn(k resource.Key, id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.own[k] = id
}

// learnID is learn of an id as the engine gives it.
func (c *Client) learnID(k resource.Key, id string) {
	if n, err := strconv.Atoi(id); err == nil {
		c.learn(k, n)
	}
}

func (c *Client) forget(k resource.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.own, k)
}

func (c *Client) ownID(k resource.Key) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.own[k]
	return id, ok
}

// lastLookups are the lookups read last, or nil.
func (c *Client) lastLookups() *lookups {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

func (c *Client) setLookups(l *lookups) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = l
}
