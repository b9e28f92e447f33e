package neutron

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// rangeServer answers the range writer's requests with fixed status codes
// and records each request as "METHOD path If-Match".
type rangeServer struct {
	status map[string]int // "METHOD path-suffix" -> status; default 2xx
	mu     sync.Mutex
	calls  []string
}

func (s *rangeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/v2.0/"+rangesPath)
	s.calls = append(s.calls, strings.TrimSpace(r.Method+" "+path+" "+r.Header.Get("If-Match")))
	for k, code := range s.status {
		if m, suffix, _ := strings.Cut(k, " "); m == r.Method && strings.HasSuffix(path, suffix) {
			w.WriteHeader(code)
			return
		}
	}
	switch r.Method {
	case http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"network_segment_range": map[string]any{"id": "r-new"}})
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPut:
		if strings.Contains(path, "/tags/") {
			w.WriteHeader(http.StatusCreated)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{})
	}
}

func TestApplyRanges(t *testing.T) {
	me := resource.StaticOwner("spec")
	desired := &resource.SegmentRange{M: resource.Meta{Owner: me}, Name: "a11-vlans", Site: "a11",
		NetworkType: "vlan", PhysicalNetwork: "a11-12-network", Minimum: 100, Maximum: 199, Shared: true}
	current := &resource.SegmentRange{M: resource.Meta{ID: "r1", Version: "7"}, Name: "a11-vlans", Site: "a11",
		NetworkType: "vlan", PhysicalNetwork: "a11-12-network", Minimum: 100, Maximum: 150, Shared: true}
	wider := plan.Change{Action: plan.Update, Key: desired.Key(), Desired: desired, Current: current, Fields: desired.Diff(current)}
	tests := []struct {
		name      string
		change    plan.Change
		status    map[string]int
		wantCalls []string
		wantMoved bool
		wantErr   bool
	}{
		{
			name:      "create posts, then tags",
			change:    plan.Change{Action: plan.Create, Key: desired.Key(), Desired: desired},
			wantCalls: []string{"POST", "PUT /r-new/tags"},
		},
		{
			name:      "create whose tagging fails is deleted again",
			change:    plan.Change{Action: plan.Create, Key: desired.Key(), Desired: desired},
			status:    map[string]int{"PUT /tags": http.StatusInternalServerError},
			wantCalls: []string{"POST", "PUT /r-new/tags", "DELETE /r-new"},
			wantErr:   true,
		},
		{
			name:      "update sends the planned revision",
			change:    wider,
			wantCalls: []string{"PUT /r1 revision_number=7"},
		},
		{
			name:      "update of a range changed since the plan",
			change:    wider,
			status:    map[string]int{"PUT /r1": http.StatusPreconditionFailed},
			wantCalls: []string{"PUT /r1 revision_number=7"},
			wantMoved: true,
		},
		{
			name:      "adopt adds the marker tags one by one",
			change:    plan.Change{Action: plan.Adopt, Key: desired.Key(), Desired: desired, Current: current, Fields: desired.Diff(current)},
			wantCalls: []string{"PUT /r1 revision_number=7", "PUT /r1/tags/managed-by-ipsync", "PUT /r1/tags/ipsync_owner=static:spec"},
		},
		{
			name:      "delete sends the planned revision",
			change:    plan.Change{Action: plan.Delete, Key: current.Key(), Current: current},
			wantCalls: []string{"DELETE /r1 revision_number=7"},
		},
		{
			name:      "delete of a range already gone is done",
			change:    plan.Change{Action: plan.Delete, Key: current.Key(), Current: current},
			status:    map[string]int{"DELETE /r1": http.StatusNotFound},
			wantCalls: []string{"DELETE /r1 revision_number=7"},
		},
		{
			name: "physical network cannot change in place",
			change: func() plan.Change {
				d := resource.Clone(desired).(*resource.SegmentRange)
				d.PhysicalNetwork = "a11-13-network"
				return plan.Change{Action: plan.Update, Key: d.Key(), Desired: d, Current: current, Fields: d.Diff(current)}
			}(),
			wantErr: true,
		},
		{
			name: "range of another site is refused",
			change: func() plan.Change {
				d := resource.Clone(desired).(*resource.SegmentRange)
				d.Site = "b22"
				return plan.Change{Action: plan.Create, Key: d.Key(), Desired: d}
			}(),
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &rangeServer{status: tt.status}
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			r, err := NewReader(context.Background(), Config{Endpoint: hs.URL}, discard())
			if err != nil {
				t.Fatal(err)
			}
			w := NewRangeWriter(r, RangeConfig{Site: "a11"}, discard())

			n, err := w.Apply(context.Background(), []plan.Change{tt.change})
			if moved := errors.Is(err, ErrMoved); moved != tt.wantMoved {
				t.Errorf("Apply error %v: ErrMoved %v, want %v", err, moved, tt.wantMoved)
			}
			if failed := err != nil; failed != (tt.wantErr || tt.wantMoved) {
				t.Errorf("Apply error = %v, want error %v", err, tt.wantErr || tt.wantMoved)
			}
			if wantN := map[bool]int{true: 0, false: 1}[err != nil]; n != wantN {
				t.Errorf("Apply wrote %d, want %d", n, wantN)
			}
			if !slices.Equal(srv.calls, tt.wantCalls) {
				t.Errorf("requests = %q, want %q", srv.calls, tt.wantCalls)
			}
		})
	}
}

func TestListRangesOwner(t *testing.T) {
	f := &fakeNeutron{pages: map[string]int{}, collections: map[string][]map[string]any{rangesPath: {
		{"id": "r1", "name": "mine", "network_type": "vlan", "minimum": 1, "maximum": 9, "revision_number": 3,
			"tags": []string{"managed-by-ipsync", "ipsync_owner=static:spec"}},
		{"id": "r2", "name": "hand-made", "network_type": "vxlan", "minimum": 1, "maximum": 9, "tags": []string{"x"}},
		{"id": "r3", "name": "bad-owner", "network_type": "vxlan", "minimum": 1, "maximum": 9, "tags": []string{"ipsync_owner=me"}},
		{"id": "r4", "name": "", "default": true, "network_type": "vlan", "minimum": 1, "maximum": 9},
	}}}
	w := NewRangeWriter(fakeReader(t, f, 10), RangeConfig{Site: "a11"}, discard())
	objs, err := w.List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	var got []string
	for _, o := range objs {
		m := o.Meta()
		got = append(got, o.Key().Name+" "+string(m.Owner)+" "+m.ID+" "+m.Version)
	}
	want := []string{"mine static:spec r1 3", "hand-made  r2 0", "bad-owner  r3 0"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
}
