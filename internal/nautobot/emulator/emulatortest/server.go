// Package emulatortest is the Nautobot emulator as tests use it: its
// change log served, and faults injected on demand in front of it, as a
// failing network or proxy would (latency, stalls, 5xx, 429 with
// Retry-After, connection resets, truncated or short pages). It is apart
// from the emulator so that ipsync's binary, whose demo serves the
// emulator, links none of this.
package emulatortest

import (
	"net/http"
	"sync"

	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/reqcount"
)

// Server is an emulator on a local port that fails on request.
type Server struct {
	*emulator.Server

	fmu    sync.Mutex // guards faults
	faults []*Fault
	// counts sees every request, the ones a fault answers before the
	// emulator does included.
	counts reqcount.Counter
}

// NewServer starts an emulator on a local port, with the change log
// served and nothing injected yet. Close it when done.
func NewServer(opts ...emulator.Option) *Server {
	s := &Server{}
	s.Server = emulator.NewServer(append([]emulator.Option{emulator.WithChangeLog(), emulator.WithFront(s.front)}, opts...)...)
	return s
}

func (s *Server) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := s.take(r); f != nil {
			serveFaulted(w, r, f, next)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Requests counts the requests received with method ("" for any) whose
// path starts with pathPrefix, faulted ones included.
func (s *Server) Requests(method, pathPrefix string) int {
	return s.counts.Requests(method, pathPrefix)
}

// ResetCounts forgets the requests counted so far.
func (s *Server) ResetCounts() { s.counts.Reset() }
