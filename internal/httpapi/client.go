package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ipsync/ipsync/internal/backoff"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/plural"
)

// Config is how to reach one server.
type Config struct {
	Base *url.URL     // base URL; request paths are appended to its path
	HTTP *http.Client // sends the requests, with its TLS settings
	// Auth is the Authorization header value, e.g. "Token <t>" or
	// "Bearer nbt_<key>.<token>". Never logged.
	Auth string
	// Server names the server in messages ("nautobot"), and its config
	// section, so "is nautobot.url right" points at the setting to fix.
	Server     string
	Timeout    time.Duration // per attempt; default 60s
	MaxRetries int           // retries after the first attempt
	// MaxWait caps one request, its retries included: no attempt starts
	// that could not end, answered or timed out, within MaxWait of the
	// first. A server that takes connections and never answers would
	// otherwise hold a run for MaxRetries+1 timeouts. Zero: no cap but
	// MaxRetries.
	MaxWait time.Duration
	// Identify makes the first 404 or 400 ask the server what it is
	// (/api/status/), so that a config pointed at the other kind of
	// server says so instead of "404 Not Found" or "Unknown filter
	// field".
	Identify bool
	// Header is sent with every request, before a request's own headers
	// (NetBox's X-NetBox-Branch: every read and write in one branch).
	Header http.Header
	Clock  clock.Clock // what retries wait on; default the wall clock
	Jitter func() float64
	Log    *slog.Logger
}

// Client sends requests to one server. It is safe for concurrent use.
type Client struct {
	cfg  Config
	sent atomic.Int64 // attempts sent, for Requests

	identMu    sync.Mutex
	identified bool
	identErr   error
}

// New returns a client for cfg, filling the defaults.
func New(cfg Config) *Client {
	if cfg.HTTP == nil {
		cfg.HTTP = http.DefaultClient
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Jitter == nil {
		cfg.Jitter = rand.Float64
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Server == "" {
		cfg.Server = "server"
	}
	return &Client{cfg: cfg}
}

// Requests is how many requests the client has sent, retries included.
func (c *Client) Requests() int64 { return c.sent.Load() }

// Base is the server's base URL.
func (c *Client) Base() *url.URL { return c.cfg.Base }

// Request is one logical API call, sent once or more.
type Request struct {
	Method string
	Path   string // below the base URL, e.g. "/api/ipam/prefixes/"
	Query  url.Values
	// Header holds headers besides Authorization and Content-Type (an
	// Accept with a version pin, an If-Match).
	Header http.Header
	// Body, when set, is asked for the body of each attempt. maybeSent
	// says whether an earlier attempt may have reached the server (a
	// reset, a timeout, a 5xx), so a create can check what already
	// exists before sending again; skip means nothing is left to send,
	// and Do returns ErrSkipped.
	Body func(ctx context.Context, attempt int, maybeSent bool) (raw []byte, skip bool, err error)
	// Decode, when set, reads a 2xx answer's body; if it cannot, the
	// answer was cut short or garbled on the way and the request is
	// retried.
	Decode func(body []byte) error
	Tally  *Tally
	// Answer500, when set, makes an HTTP 500 an answer for the caller
	// after Retries500 retries, instead of a failure retried like other
	// 5xx: a server that fails one object of a bulk write with 500 fails
	// it every time.
	Answer500  bool
	Retries500 int
}

// Response is an answer: status, headers and the whole body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// ErrSkipped reports that a request's Body found nothing to send.
var ErrSkipped = errors.New("nothing left to send")

// Tally counts the requests one operation sends, retries included.
type Tally struct{ reads, writes atomic.Int64 }

func (t *Tally) count(method string) {
	if t == nil {
		return
	}
	if method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions {
		t.reads.Add(1)
	} else {
		t.writes.Add(1)
	}
}

// Reads is the number of requests sent that change nothing (GET, HEAD,
// OPTIONS).
func (t *Tally) Reads() int64 { return t.reads.Load() }

// Writes is the number of other requests sent.
func (t *Tally) Writes() int64 { return t.writes.Load() }

const (
	// The wait between attempts: from half a second, doubled per attempt
	// up to 30s, spread by ±50%.
	backoffMin    = 500 * time.Millisecond
	backoffMax    = 30 * time.Second
	backoffJitter = 0.5
)

// Do sends r, retrying transient failures. Other answers, successes and
// 4xx, are returned as they are; with r.Answer500, so is an HTTP 500
// after r.Retries500 retries.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	target := *c.cfg.Base
	target.Path += r.Path
	target.RawQuery = r.Query.Encode()
	maybeSent := false
	start := c.cfg.Clock.Now()
	for attempt := 0; ; attempt++ {
		var raw []byte
		if r.Body != nil {
			b, skip, err := r.Body(ctx, attempt, maybeSent)
			if err != nil {
				return nil, err
			}
			if skip {
				return nil, ErrSkipped
			}
			raw = b
		}
		resp, sent, err := c.once(ctx, r, target.String(), raw)
		r.Tally.count(r.Method)
		c.sent.Add(1)
		var wait time.Duration
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			maybeSent = maybeSent || sent
			if why := c.permanent(err); why != "" {
				return nil, fmt.Errorf("%s %s: %w (not retried: %s)", r.Method, r.Path, err, why)
			}
		case resp.Status == http.StatusTooManyRequests:
			wait = retryAfter(resp.Header.Get("Retry-After"), c.cfg.Clock.Now())
			err = r.Error(resp)
		case resp.Status == http.StatusInternalServerError && r.Answer500 && attempt >= min(r.Retries500, c.cfg.MaxRetries):
			return resp, nil
		case resp.Status >= 500:
			maybeSent = true
			err = r.Error(resp)
		case resp.Status < 300 && r.Decode != nil && r.Decode(resp.Body) != nil:
			maybeSent = true
			err = fmt.Errorf("%s %s: unreadable answer (%d bytes)", r.Method, r.Path, len(resp.Body))
		case (resp.Status == http.StatusNotFound || resp.Status == http.StatusBadRequest) && c.cfg.Identify:
			if err := c.identify(ctx); err != nil {
				return nil, err
			}
			return resp, nil
		default:
			return resp, nil
		}
		if attempt >= c.cfg.MaxRetries {
			return nil, fmt.Errorf("%s %s: giving up after %d attempts: %w", r.Method, r.Path, attempt+1, err)
		}
		if wait == 0 {
			wait = backoff.Policy{Min: backoffMin, Max: backoffMax, Jitter: backoffJitter}.Delay(attempt+1, c.cfg.Jitter())
		}
		if elapsed := c.cfg.Clock.Now().Sub(start); c.cfg.MaxWait > 0 && elapsed+wait+c.cfg.Timeout > c.cfg.MaxWait {
			return nil, fmt.Errorf("%s %s: giving up after %s in %v: one more could end after %s.max_wait (%v): %w",
				r.Method, r.Path, plural.Of(attempt+1, "attempt"), elapsed.Round(time.Second), c.cfg.Server, c.cfg.MaxWait, err)
		}
		// Said at warn: a run that waits on retries must not look hung.
		c.cfg.Log.Warn(c.cfg.Server+" request failed; retrying", "method", r.Method, "path", r.Path,
			"attempt", attempt+1, "attempts", c.cfg.MaxRetries+1, "wait", wait, "err", err)
		if err := clock.Sleep(ctx, c.cfg.Clock, wait); err != nil {
			return nil, err
		}
	}
}

// quietLimit is the longest an attempt waits for its answer before the
// log says so (half the timeout when that is shorter): a server that takes
// connections and never answers holds a run for the whole timeout, which
// must not pass in silence. A bulk write of a few hundred objects takes
// 10-25 s on a busy server; that much is not worth a warning.
const quietLimit = 30 * time.Second

// once sends one attempt. sent reports whether the request may have
// reached the server: false only when the connection could not be made.
func (c *Client) once(ctx context.Context, r Request, target string, body []byte) (*Response, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	quiet := min(quietLimit, c.cfg.Timeout/2)
	notice := time.AfterFunc(quiet, func() {
		c.cfg.Log.Warn(c.cfg.Server+" has not answered yet; waiting up to the timeout", "method", r.Method, "path", r.Path,
			"waited", quiet, "timeout", c.cfg.Timeout)
	})
	defer notice.Stop()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, target, rd)
	if err != nil {
		return nil, false, fmt.Errorf("build request: %w", err)
	}
	for k, v := range c.cfg.Header {
		req.Header[k] = v
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("Authorization", c.cfg.Auth)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		var op *net.OpError
		dialFailed := errors.As(err, &op) && op.Op == "dial"
		return nil, !dialFailed, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, true, fmt.Errorf("%s %s: read answer: %w", r.Method, req.URL.Path, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}, true, nil
}

// Snippet is the start of a body, for messages.
func Snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}

// With is q with extra's parameters added (extra's win); q itself is left
// as it is.
func With(q, extra url.Values) url.Values {
	if len(extra) == 0 {
		return q
	}
	out := make(url.Values, len(q)+len(extra))
	for k, v := range q {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}
