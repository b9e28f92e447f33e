package emulator

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// Reset says whether and when a fault drops the connection.
type Reset int

const (
	// NoReset answers normally.
	NoReset Reset = iota
	// ResetBeforeHandling drops the connection before the request is
	// handled: nothing is written.
	ResetBeforeHandling
	// ResetAfterHandling handles the request (a write is committed), then
	// drops the connection without answering, as a proxy timing out
	// might. This is the case that makes retried creates dangerous.
	ResetAfterHandling
)

// Fault changes how the server answers matching requests.
type Fault struct {
	Method     string // "" matches every method
	PathPrefix string // "" matches every path, e.g. "/api/ipam/prefixes/"
	// Times is how many matching requests the fault affects; 0 means
	// every one until ClearFaults.
	Times int

	Latency time.Duration // added before the request is handled
	// Stall holds the request this long and then handles it whether or
	// not the client still waits, as a stalled worker does: a write
	// commits after the client gave up on it, and a retry sent meanwhile
	// finds nothing yet.
	Stall      time.Duration
	Status     int // answer with this status instead of handling it (5xx, 429)
	RetryAfter int // seconds, sent with Status 429
	Reset      Reset
	Truncate   bool // handle the request, then send only half the body
	EndEarly   bool // list pages: "next" is null although more remain
	CountDelta int  // list pages: "count" is off by this many
}

func (f *Fault) matches(r *http.Request) bool {
	return (f.Method == "" || strings.EqualFold(f.Method, r.Method)) && strings.HasPrefix(r.URL.Path, f.PathPrefix)
}

// Inject adds a fault. The first fault matching a request applies to it.
func (h *Handler) Inject(f Fault) {
	h.fmu.Lock()
	defer h.fmu.Unlock()
	h.faults = append(h.faults, &f)
}

// ClearFaults removes every fault.
func (h *Handler) ClearFaults() {
	h.fmu.Lock()
	defer h.fmu.Unlock()
	h.faults = nil
}

// take counts r and returns the fault that applies to it, if any.
func (h *Handler) take(r *http.Request) *Fault {
	h.fmu.Lock()
	defer h.fmu.Unlock()
	h.counts.Add(r.Method, r.URL.Path)
	for i, f := range h.faults {
		if !f.matches(r) {
			continue
		}
		applied := *f
		if f.Times > 0 {
			if f.Times--; f.Times == 0 {
				h.faults = append(h.faults[:i:i], h.faults[i+1:]...)
			}
		}
		return &applied
	}
	return nil
}

// Requests counts the requests received with method ("" for any) whose
// path starts with pathPrefix, faulted ones included.
func (h *Handler) Requests(method, pathPrefix string) int {
	return h.counts.Requests(method, pathPrefix)
}

// ResetCounts forgets the requests counted so far.
func (h *Handler) ResetCounts() { h.counts.Reset() }

// serveFaulted applies f around the normal handling of r.
func (h *Handler) serveFaulted(w http.ResponseWriter, r *http.Request, f *Fault) {
	if f.Latency > 0 {
		if err := sleep(r.Context(), f.Latency); err != nil {
			return
		}
	}
	if f.Stall > 0 {
		r = r.WithContext(context.WithoutCancel(r.Context()))
		if err := sleep(r.Context(), f.Stall); err != nil {
			return
		}
	}
	switch {
	case f.Status == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
		writeJSON(w, f.Status, "", []byte(fmt.Sprintf(`{"detail": "Request was throttled. Expected available in %d seconds."}`, f.RetryAfter)))
	case f.Status != 0:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", f.Status, http.StatusText(f.Status))
	case f.Reset == ResetBeforeHandling:
		hangUp(w, true)
	case f.Reset == ResetAfterHandling || f.Truncate:
		rec := httptest.NewRecorder()
		h.serve(rec, r, f)
		if f.Reset == ResetAfterHandling {
			hangUp(w, true)
			return
		}
		body := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		// Announce the whole body and send half: the client sees an
		// unexpected EOF, as when a proxy cuts a response short.
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body[:len(body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		hangUp(w, false)
	default:
		h.serve(w, r, f)
	}
}

// hangUp closes the connection without (further) answer, with a TCP reset
// when rst is set.
func hangUp(w http.ResponseWriter, rst bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok && rst {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
