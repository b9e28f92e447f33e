package emulatortest

import (
	"context"
	"encoding/json"
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
func (s *Server) Inject(f Fault) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	s.faults = nil
}

// take counts r and returns the fault that applies to it, if any.
func (s *Server) take(r *http.Request) *Fault {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	s.counts.Add(r.Method, r.URL.Path)
	for i, f := range s.faults {
		if !f.matches(r) {
			continue
		}
		applied := *f
		if f.Times > 0 {
			if f.Times--; f.Times == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return &applied
	}
	return nil
}

// serveFaulted applies f around next's handling of r.
func serveFaulted(w http.ResponseWriter, r *http.Request, f *Fault, next http.Handler) {
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
		body := fmt.Sprintf(`{"detail": "Request was throttled. Expected available in %d seconds."}`, f.RetryAfter)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(body))
	case f.Status != 0:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", f.Status, http.StatusText(f.Status))
	case f.Reset == ResetBeforeHandling:
		hangUp(w, true)
	case f.Reset == ResetAfterHandling || f.Truncate || f.EndEarly || f.CountDelta != 0:
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if f.Reset == ResetAfterHandling {
			hangUp(w, true)
			return
		}
		body := rec.Body.Bytes()
		if f.EndEarly || f.CountDelta != 0 {
			body = shortPage(rec.Code, body, f)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		if !f.Truncate {
			_, _ = w.Write(body)
			return
		}
		// Announce the whole body and send half: the client sees an
		// unexpected EOF, as when a proxy cuts a response short.
		_, _ = w.Write(body[:len(body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		hangUp(w, false)
	default:
		next.ServeHTTP(w, r)
	}
}

// shortPage is a list page as f leaves it: "next" null although more
// remain, "count" off by CountDelta. Other answers pass unchanged.
func shortPage(status int, body []byte, f *Fault) []byte {
	var p struct {
		Count    int             `json:"count"`
		Next     *string         `json:"next"`
		Previous *string         `json:"previous"`
		Results  json.RawMessage `json:"results"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &p) != nil || p.Results == nil {
		return body
	}
	if f.EndEarly {
		p.Next = nil
	}
	p.Count += f.CountDelta
	out, err := json.Marshal(p)
	if err != nil {
		return body
	}
	return out
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
