package neutron

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// bindingsServer answers each GET with testdata/bindings/<path>.json, a
// member's path joined by "_", as Neutron 21 answers them with the
// baremetal driver (recorded, with odd values added).
func bindingsServer(t *testing.T) (*Reader, map[string]int) {
	t.Helper()
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.ReplaceAll(strings.Trim(strings.TrimPrefix(r.URL.Path, "/v2.0"), "/"), "/", "_")
		mu.Lock()
		hits[name]++
		mu.Unlock()
		body, err := os.ReadFile("testdata/bindings/" + name + ".json")
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	r, err := NewReader(context.Background(), Config{Endpoint: srv.URL + "/v2.0/", Auth: AuthNoauth}, discard())
	if err != nil {
		t.Fatal(err)
	}
	return r, hits
}

func TestReadBindings(t *testing.T) {
	r, hits := bindingsServer(t)
	s, err := r.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	ports := map[string]Port{}
	for _, p := range s.Ports {
		ports[p.ID] = p
	}
	tests := []struct {
		port     string
		vifType  string
		physnets []string
		updated  time.Time
	}{
		// Every agent of the node counts, of whatever type.
		{"p-agent", "other", []string{"a11-12-network", "sriov-net"}, time.Date(2026, 12, 7, 2, 25, 19, 0, time.UTC)},
		// The profile's word wins over the agents'.
		{"p-profile", "other", []string{"a11-13-network"}, time.Date(2026, 12, 7, 2, 25, 19, 0, time.UTC)},
		{"p-unbound", VIFUnbound, nil, time.Date(2026, 12, 7, 2, 26, 0, 0, time.UTC)},
		// A profile that is not an object, a host without agents and a
		// timestamp that does not parse cost the port nothing but those.
		{"p-odd", "ovs", nil, time.Time{}},
	}
	for _, tt := range tests {
		p, ok := ports[tt.port]
		if !ok {
			t.Errorf("port %s not read", tt.port)
			continue
		}
		if p.VIFType != tt.vifType || !reflect.DeepEqual(p.Physnets, tt.physnets) || !p.UpdatedAt.Equal(tt.updated) {
			t.Errorf("port %s: vif type %q, physnets %v, updated %v; want %q, %v, %v", tt.port, p.VIFType, p.Physnets, p.UpdatedAt, tt.vifType, tt.physnets, tt.updated)
		}
	}
	for _, sg := range s.Segments {
		if want := time.Date(2026, 12, 7, 2, 25, 17, 0, time.UTC); !sg.CreatedAt.Equal(want) {
			t.Errorf("segment %s created %v, want %v", sg.ID, sg.CreatedAt, want)
		}
	}
	unheld := map[string][]int{}
	for _, rg := range s.Ranges {
		unheld[rg.ID] = rg.Unheld
	}
	// 150-155: 152, 154 and 155 free, 150 a segment's; the VNI range is
	// too large to list its free ids.
	if want := map[string][]int{"r-vlan": {151, 153}, "r-vni": nil}; !reflect.DeepEqual(unheld, want) {
		t.Errorf("unheld = %v, want %v", unheld, want)
	}
	// A range with unheld ids is read twice: an allocation made between
	// Neutron's two queries of the first read is not one.
	if hits["network_segment_ranges_r-vlan"] != 2 || hits["network_segment_ranges_r-vni"] != 0 {
		t.Errorf("allocation reads = %v, want r-vlan twice and r-vni never", hits)
	}
	if s.ReadAt.IsZero() {
		t.Error("ReadAt not set")
	}
}

func TestReadNetworksReadsAgentsOnlyWhenNeeded(t *testing.T) {
	r, hits := bindingsServer(t)
	s, err := r.ReadNetworks(context.Background(), []string{"n-r"})
	if err != nil {
		t.Fatalf("ReadNetworks: %v", err)
	}
	if hits["agents"] != 1 {
		t.Errorf("agents read %d times, want once: port p-agent's physical network is its node's agent's", hits["agents"])
	}
	for _, p := range s.Ports {
		if p.ID == "p-agent" && !reflect.DeepEqual(p.Physnets, []string{"a11-12-network", "sriov-net"}) {
			t.Errorf("p-agent physnets = %v", p.Physnets)
		}
	}
}
