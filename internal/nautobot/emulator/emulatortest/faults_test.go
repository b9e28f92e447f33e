package emulatortest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/emulator"
)

func TestFaults(t *testing.T) {
	s := NewServer()
	t.Cleanup(s.Close)
	var names []string
	for i := range 11 {
		names = append(names, fmt.Sprintf("ns-%03d", i))
	}
	if err := s.Seed(emulator.SeedData{Namespaces: names}); err != nil { // with Global: 12
		t.Fatal(err)
	}
	get := func() (*http.Response, []byte, error) {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+"/api/ipam/namespaces/?limit=5", nil)
		req.Header.Set("Authorization", "Token "+emulator.DefaultToken)
		resp, err := s.Client().Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		return resp, raw, err
	}

	s.Inject(Fault{Method: "GET", PathPrefix: "/api/ipam/namespaces/", Times: 2, Status: 503})
	for i, want := range []int{503, 503, 200} {
		resp, _, err := get()
		if err != nil || resp.StatusCode != want {
			t.Errorf("request %d after a 2x503 fault: %v %v, want %d", i, resp.StatusCode, err, want)
		}
	}

	s.Inject(Fault{Times: 1, Status: 429, RetryAfter: 7})
	if resp, _, err := get(); err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" {
		t.Errorf("429 fault: %v, %v", resp, err)
	}

	// Go's transport replays a GET once when a reused connection drops,
	// so it takes two resets for the caller to see one.
	s.Inject(Fault{Times: 2, Reset: ResetBeforeHandling})
	if _, _, err := get(); err == nil {
		t.Errorf("reset fault: request succeeded")
	}

	s.Inject(Fault{Times: 1, Truncate: true})
	if _, _, err := get(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncate fault: err = %v, want unexpected EOF", err)
	}

	s.Inject(Fault{Times: 1, EndEarly: true, CountDelta: 3})
	resp, raw, err := get()
	var page map[string]any
	if err != nil || resp.StatusCode != 200 || json.Unmarshal(raw, &page) != nil {
		t.Fatalf("short page fault: %v %v %s", resp, err, raw)
	}
	if page["next"] != nil || page["count"] != float64(15) || len(page["results"].([]any)) != 5 {
		t.Errorf("short page fault: next %v count %v, want null and 15", page["next"], page["count"])
	}

	s.ResetCounts()
	s.Inject(Fault{Method: "POST", Times: 1, Reset: ResetAfterHandling})
	if _, _, err := get(); err != nil {
		t.Errorf("a POST fault hit a GET: %v", err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/api/ipam/namespaces/", strings.NewReader(`{"name": "committed"}`))
	req.Header.Set("Authorization", "Token "+emulator.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := s.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("reset-after-handling POST got an answer: %d", resp.StatusCode)
	}
	if n := s.Count("ipam.namespace"); n != 13 {
		t.Errorf("after a reset-after-handling POST %d namespaces, want 13 (the write is committed)", n)
	}
	if got := s.Requests("POST", "/api/ipam/"); got != 1 {
		t.Errorf("Requests(POST) = %d, want 1", got)
	}
	if got := s.Requests("", "/api/ipam/namespaces/"); got != 2 {
		t.Errorf("Requests(any) = %d, want 2", got)
	}
}
