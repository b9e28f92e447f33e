package neutron

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// rangeStore is a Neutron holding segment ranges, whose answers can be
// cut off after it acted: what a lost answer or a cancelled run leaves.
type rangeStore struct {
	mu     sync.Mutex
	ranges map[string]map[string]any
	next   int
	// afterWrite runs after a write took effect and before its answer; it
	// returns false to drop the answer (the connection is cut).
	afterWrite func(r *http.Request) bool
}

func (s *rangeStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.Trim(strings.TrimPrefix(r.URL.Path, "/v2.0/"+rangesPath), "/")
	id, sub, _ := strings.Cut(path, "/")
	s.mu.Lock()
	status, body := s.serve(r, id, sub)
	s.mu.Unlock()
	if r.Method != http.MethodGet && s.afterWrite != nil && !s.afterWrite(r) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if body != nil {
		json.NewEncoder(w).Encode(body)
	}
}

func (s *rangeStore) serve(r *http.Request, id, sub string) (int, any) {
	switch {
	case r.Method == http.MethodPost && id == "":
		var req struct {
			Range map[string]any `json:"network_segment_range"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		s.next++
		req.Range["id"] = "r" + string(rune('0'+s.next))
		req.Range["tags"] = []string{}
		s.ranges[req.Range["id"].(string)] = req.Range
		return http.StatusCreated, map[string]any{"network_segment_range": req.Range}
	case r.Method == http.MethodGet && id == "":
		var out []map[string]any
		for _, rg := range s.ranges {
			if n := r.URL.Query().Get("name"); n == "" || rg["name"] == n {
				out = append(out, rg)
			}
		}
		return http.StatusOK, map[string]any{rangesPath: out}
	case s.ranges[id] == nil:
		return http.StatusNotFound, nil
	case r.Method == http.MethodPut && sub == "tags":
		var req struct{ Tags []string }
		json.NewDecoder(r.Body).Decode(&req)
		s.ranges[id]["tags"] = req.Tags
		return http.StatusOK, req
	case r.Method == http.MethodDelete && sub == "":
		delete(s.ranges, id)
		return http.StatusNoContent, nil
	}
	return http.StatusBadRequest, nil
}

// TestCreateRangeCutOff: a create interrupted between Neutron acting and
// ipsync hearing of it leaves no unmarked range behind.
func TestCreateRangeCutOff(t *testing.T) {
	me := resource.StaticOwner("spec")
	desired := &resource.SegmentRange{M: resource.Meta{Owner: me}, Name: "a11-vni", Site: "a11",
		NetworkType: resource.NetworkVXLAN, Minimum: 1000, Maximum: 1999, Shared: true}
	tests := []struct {
		name string
		// cut decides, for each write that took effect, whether its answer
		// arrives; cancel is the run's context.
		cut       func(r *http.Request, cancel context.CancelFunc) bool
		wantErr   string
		wantLeft  int
		wantMarks bool
	}{
		{
			name:     "the create's answer is lost",
			cut:      func(r *http.Request, _ context.CancelFunc) bool { return r.Method != http.MethodPost },
			wantErr:  "deleted it again",
			wantLeft: 0,
		},
		{
			name: "the run is cancelled after Neutron created the range",
			cut: func(r *http.Request, cancel context.CancelFunc) bool {
				if r.Method == http.MethodPost {
					cancel()
				}
				return true
			},
			wantErr:  "deleted it again",
			wantLeft: 0,
		},
		{
			name: "the run is cancelled while the create's answer is on its way",
			cut: func(r *http.Request, cancel context.CancelFunc) bool {
				if r.Method == http.MethodPost {
					cancel()
					return false
				}
				return true
			},
			wantErr:  "deleted it again",
			wantLeft: 0,
		},
		{
			name: "the run is cancelled while the new range is tagged",
			cut: func(r *http.Request, cancel context.CancelFunc) bool {
				if r.Method == http.MethodPut {
					// The answer waits until the client has seen the
					// cancellation; answering at once would race it.
					cancel()
					<-r.Context().Done()
				}
				return true
			},
			wantErr:  "deleted it again",
			wantLeft: 0,
		},
		{
			name:      "nothing cut",
			cut:       func(*http.Request, context.CancelFunc) bool { return true },
			wantLeft:  1,
			wantMarks: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			store := &rangeStore{ranges: map[string]map[string]any{}}
			store.afterWrite = func(r *http.Request) bool { return tt.cut(r, cancel) }
			hs := httptest.NewServer(store)
			t.Cleanup(hs.Close)
			r, err := NewReader(context.Background(), Config{Endpoint: hs.URL}, discard())
			if err != nil {
				t.Fatal(err)
			}
			w := NewRangeWriter(r, RangeConfig{Site: "a11"}, discard())
			_, err = w.Apply(ctx, []plan.Change{{Action: plan.Create, Key: desired.Key(), Desired: desired}})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Apply: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Apply error = %v, want it to say %q", err, tt.wantErr)
			}
			store.mu.Lock()
			defer store.mu.Unlock()
			if len(store.ranges) != tt.wantLeft {
				t.Fatalf("Neutron holds %d ranges, want %d: %v", len(store.ranges), tt.wantLeft, store.ranges)
			}
			for _, rg := range store.ranges {
				if tags, _ := rg["tags"].([]string); (len(tags) > 0) != tt.wantMarks {
					t.Errorf("range %v: tags %v, want marked %v", rg["id"], rg["tags"], tt.wantMarks)
				}
			}
		})
	}
}
