package sot

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
)

// Settings are how to reach a source of truth and how ipsync marks what
// it owns there: what both servers' configs have.
type Settings struct {
	URL   string // base URL, e.g. https://nautobot.example.com
	Token string // API token; read from env or a file by the caller, never logged
	// PageSize is objects per list page; default 1000 (both servers'
	// MAX_PAGE_SIZE).
	PageSize    int
	BatchSize   int // objects per bulk write; default 250
	Concurrency int // list sweeps, and bulk writes of IP addresses or VLANs, run at once; default 4
	// InsecureSkipVerify turns TLS certificate checks off. It has no
	// effect with WithHTTPClient, whose transport is used as given.
	InsecureSkipVerify bool
	Tag                string        // marker tag; default "managed-by-ipsync"
	OwnerField         string        // custom field with the owner; default "ipsync_owner"
	VNIField           string        // integer custom field with a prefix's VNI; default "vni"
	Timeout            time.Duration // per request attempt; default 60s
	// MaxRetries is how often a failed request is retried; default 5,
	// negative for none.
	MaxRetries int
	// MaxWait caps one request, its retries included (httpapi's
	// MaxWait); zero: no cap but MaxRetries.
	MaxWait time.Duration
}

// WithDefaults fills s's defaults and returns what is wrong with it;
// server names it in the errors ("nautobot url ...").
func (s *Settings) WithDefaults(server string) []error {
	if s.PageSize <= 0 {
		s.PageSize = 1000
	}
	if s.BatchSize <= 0 {
		s.BatchSize = 250
	}
	if s.Concurrency <= 0 {
		s.Concurrency = 4
	}
	if s.Tag == "" {
		s.Tag = "managed-by-ipsync"
	}
	if s.OwnerField == "" {
		s.OwnerField = "ipsync_owner"
	}
	if s.VNIField == "" {
		s.VNIField = "vni"
	}
	if s.Timeout <= 0 {
		s.Timeout = 60 * time.Second
	}
	switch {
	case s.MaxRetries == 0:
		s.MaxRetries = 5
	case s.MaxRetries < 0:
		s.MaxRetries = 0
	}
	var errs []error
	if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("%s url %q: want http(s)://host[:port]", server, s.URL))
	}
	if s.Token == "" {
		errs = append(errs, fmt.Errorf("%s token is empty", server))
	}
	return errs
}

// Transport is how a client sends: what options set before the client
// is built from them.
type Transport struct {
	HTTP     *http.Client
	Clock    clock.Clock
	Progress Progress
}

// Option changes how a client is built.
type Option func(*Transport)

// WithHTTPClient makes the client send requests with h (its transport and
// TLS settings are used as given).
func WithHTTPClient(h *http.Client) Option { return func(t *Transport) { t.HTTP = h } }

// WithClock sets the clock retries wait on; tests inject one that does not
// sleep.
func WithClock(clk clock.Clock) Option { return func(t *Transport) { t.Clock = clk } }

// WithProgress reports the progress of reads and writes to p.
func WithProgress(p Progress) Option { return func(t *Transport) { t.Progress = p } }

// Connect is the request loop's config of a client of server
// ("nautobot") with s, its defaults filled, and opts, and the transport
// the options chose; the client logs with logger, given the server's
// component and host. cfg holds what the dialect adds to every request
// (its Authorization, Identify).
func Connect(s Settings, server string, logger *slog.Logger, opts []Option, cfg httpapi.Config) (httpapi.Config, Transport) {
	base, _ := url.Parse(strings.TrimRight(s.URL, "/"))
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	log := logger.With("component", server, "host", base.Host)
	t := Transport{Clock: clock.Real(), Progress: NoProgress{}}
	for _, o := range opts {
		o(&t)
	}
	if t.HTTP == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: s.InsecureSkipVerify}
		tr.MaxIdleConnsPerHost = s.Concurrency + 1
		t.HTTP = &http.Client{Transport: tr}
	}
	if s.InsecureSkipVerify {
		log.Warn("TLS certificate verification is off")
	}
	cfg.Base, cfg.HTTP, cfg.Server, cfg.Clock, cfg.Log = base, t.HTTP, server, t.Clock, log
	cfg.Timeout, cfg.MaxRetries, cfg.MaxWait = s.Timeout, s.MaxRetries, s.MaxWait
	return cfg, t
}
