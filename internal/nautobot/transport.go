package nautobot

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ipsync/ipsync/internal/backoff"
	"github.com/ipsync/ipsync/internal/clock"
)

// APIError is an answer from Nautobot that is not a success.
type APIError struct {
	Method string
	Path   string
	Status int
	Body   string // the start of the body, for messages
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Status, http.StatusText(e.Status), e.Body)
}

// response is a read answer: status, headers and the whole body.
type response struct {
	status int
	header http.Header
	body   []byte
}

// request is one logical API call. body, when set, is asked for the body
// of each attempt; maybeSent says whether an earlier attempt may have
// reached Nautobot (a reset, a timeout, a 5xx), so a create can check
// what already exists before sending again. skip means nothing is left
// to send.
type request struct {
	method string
	path   string // below the base URL, e.g. "/api/ipam/prefixes/"
	query  url.Values
	body   func(ctx context.Context, attempt int, maybeSent bool) (raw []byte, skip bool, err error)
	// decode, when set, reads a 2xx answer's body; if it cannot, the
	// answer was cut short or garbled on the way and the request is
	// retried.
	decode func(body []byte) error
	tally  *tally
	// unpinned marks the request that reads the server's version: it is
	// sent before the client knows which API version to pin.
	unpinned bool
	// answer500, when set, makes an HTTP 500 an answer for the caller
	// after retries500 retries, instead of a failure retried like other
	// 5xx (see applier.send for why).
	answer500  bool
	retries500 int
}

// errSkipped reports that a request's body func found nothing to send.
var errSkipped = errors.New("nothing left to send")

const (
	// The wait between attempts: from half a second, doubled per attempt
	// up to 30s, spread by ±50%.
	backoffMin    = 500 * time.Millisecond
	backoffMax    = 30 * time.Second
	backoffJitter = 0.5
	// retryAfterMax bounds how long a Retry-After may hold a run.
	retryAfterMax = 10 * time.Minute
)

// do sends r, retrying transient failures: network errors, attempt
// timeouts, 5xx, 429 (after its Retry-After), and 2xx answers whose body
// cannot be decoded. Other answers, successes and 4xx, are returned as they are.
// With r.answer500, an HTTP 500 is returned as an answer too, after
// r.retries500 retries. The first request connects (see connect).
func (c *Client) do(ctx context.Context, r request) (*response, error) {
	api := ""
	if !r.unpinned {
		s, err := c.connect(ctx)
		if err != nil {
			return nil, err
		}
		api = s.api
	}
	target := *c.base
	target.Path += r.path
	target.RawQuery = r.query.Encode()
	maybeSent := false
	for attempt := 0; ; attempt++ {
		var raw []byte
		if r.body != nil {
			b, skip, err := r.body(ctx, attempt, maybeSent)
			if err != nil {
				return nil, err
			}
			if skip {
				return nil, errSkipped
			}
			raw = b
		}
		resp, sent, err := c.once(ctx, r.method, target.String(), api, raw)
		r.tally.count(r.method)
		var wait time.Duration
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			maybeSent = maybeSent || sent
			if why := permanent(err); why != "" {
				return nil, fmt.Errorf("%s %s: %w (not retried: %s)", r.method, r.path, err, why)
			}
		case resp.status == http.StatusTooManyRequests:
			wait = c.retryAfter(resp.header.Get("Retry-After"))
			err = &APIError{r.method, r.path, resp.status, snippet(resp.body)}
		case resp.status == http.StatusInternalServerError && r.answer500 && attempt >= min(r.retries500, c.cfg.MaxRetries):
			return resp, nil
		case resp.status >= 500:
			maybeSent = true
			err = &APIError{r.method, r.path, resp.status, snippet(resp.body)}
		case resp.status < 300 && r.decode != nil && r.decode(resp.body) != nil:
			maybeSent = true
			err = fmt.Errorf("%s %s: unreadable answer (%d bytes)", r.method, r.path, len(resp.body))
		default:
			return resp, nil
		}
		if attempt >= c.cfg.MaxRetries {
			return nil, fmt.Errorf("%s %s: giving up after %d attempts: %w", r.method, r.path, attempt+1, err)
		}
		if wait == 0 {
			wait = backoff.Policy{Min: backoffMin, Max: backoffMax, Jitter: backoffJitter}.Delay(attempt+1, c.jitter())
		}
		// Said at warn: a run that waits on retries must not look hung.
		c.log.Warn("nautobot request failed; retrying", "method", r.method, "path", r.path,
			"attempt", attempt+1, "attempts", c.cfg.MaxRetries+1, "wait", wait, "err", err)
		if err := clock.Sleep(ctx, c.clock, wait); err != nil {
			return nil, err
		}
	}
}

// permanent says why retrying err cannot help, or "" when it may: nothing
// listens at the address, the name does not resolve, the certificate is not
// trusted. A server that restarts refuses for a moment too, but the agent
// retries whole syncs, and a person at the CLI wants the answer now.
func permanent(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "the host name does not resolve"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens at that address; is nautobot.url right and Nautobot up?"
	case errors.As(err, &cert):
		return "the server's certificate is not trusted"
	}
	return ""
}

// once sends one attempt, pinned to API version api unless it is empty.
// sent reports whether the request may have reached the server: false
// only when the connection could not be made.
func (c *Client) once(ctx context.Context, method, target, api string, body []byte) (*response, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, false, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Authorization", "Token "+c.cfg.Token)
	if api != "" {
		req.Header.Set("Accept", "application/json; version="+api)
	} else {
		req.Header.Set("Accept", "application/json")
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var op *net.OpError
		dialFailed := errors.As(err, &op) && op.Op == "dial"
		return nil, !dialFailed, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, true, fmt.Errorf("%s %s: read answer: %w", method, req.URL.Path, err)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: raw}, true, nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func (c *Client) retryAfter(h string) time.Duration {
	var d time.Duration
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(c.clock.Now())
	}
	switch {
	case d <= 0:
		return 0 // no usable header: back off as for other failures
	case d > retryAfterMax:
		return retryAfterMax
	}
	return d
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}

// apiError returns the error for an unexpected answer.
func apiError(r request, resp *response) error {
	return &APIError{Method: r.method, Path: r.path, Status: resp.status, Body: snippet(resp.body)}
}
