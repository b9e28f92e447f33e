package neutron

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeNeutron pages collections the way Neutron does: sorted by id, limit
// capped at maxLimit, a "next" link when a page is full (pointing at a host
// that does not exist, as behind a proxy), an unknown marker starts again
// from the first record, and a failure on request failOn.
type fakeNeutron struct {
	collections map[string][]map[string]any
	maxLimit    int
	failOn      string // "<collection> <page>", 1-based
	// afterPage runs after a page is served, to delete records mid-read.
	afterPage func(f *fakeNeutron, collection string, page int)

	mu    sync.Mutex
	pages map[string]int
}

func (f *fakeNeutron) remove(collection string, ids ...string) {
	f.collections[collection] = slices.DeleteFunc(f.collections[collection], func(it map[string]any) bool {
		return slices.Contains(ids, it["id"].(string))
	})
}

func (f *fakeNeutron) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" { // version discovery, as gophercloud does through a catalog
		json.NewEncoder(w).Encode(map[string]any{"versions": []map[string]any{{"id": "v2.0", "status": "CURRENT"}}})
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/v2.0/")
	if name == "extensions" {
		json.NewEncoder(w).Encode(map[string]any{"extensions": []map[string]string{{"alias": extSegments}, {"alias": extSegmentRanges}}})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.collections[name]; !ok {
		http.NotFound(w, r)
		return
	}
	f.pages[name]++
	page := f.pages[name]
	if f.afterPage != nil {
		defer f.afterPage(f, name, page)
	}
	if f.failOn == fmt.Sprintf("%s %d", name, page) {
		http.Error(w, `{"NeutronError": {"message": "boom"}}`, http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 || (f.maxLimit > 0 && limit > f.maxLimit) {
		limit = f.maxLimit
	}
	sorted := slices.Clone(f.collections[name])
	slices.SortFunc(sorted, func(a, b map[string]any) int { return strings.Compare(a["id"].(string), b["id"].(string)) })
	start := 0
	if m := q.Get("marker"); m != "" {
		start = slices.IndexFunc(sorted, func(it map[string]any) bool { return it["id"] == m }) + 1
	}
	end := len(sorted)
	if limit > 0 {
		end = min(start+limit, len(sorted))
	}
	body := map[string]any{name: sorted[start:end]}
	if limit > 0 && end-start == limit {
		body[name+"_links"] = []map[string]string{{"rel": "next", "href": "http://unreachable.invalid/v2.0/" + name + "?marker=x"}}
	}
	json.NewEncoder(w).Encode(body)
}

func newFake(n int) *fakeNeutron {
	f := &fakeNeutron{collections: map[string][]map[string]any{}, pages: map[string]int{}}
	for i := range n {
		id := fmt.Sprintf("id-%02d", i)
		f.collections["networks"] = append(f.collections["networks"], map[string]any{"id": id, "name": "net" + id,
			"provider:network_type": "vlan", "provider:physical_network": "g", "provider:segmentation_id": strconv.Itoa(100 + i)})
		f.collections["segments"] = append(f.collections["segments"], map[string]any{"id": "seg-" + id, "network_id": id,
			"network_type": "vlan", "physical_network": "g", "segmentation_id": 100 + i, "name": nil})
		f.collections["subnets"] = append(f.collections["subnets"], map[string]any{"id": "sn-" + id, "network_id": id,
			"cidr": fmt.Sprintf("10.0.%d.0/24", i), "segment_id": nil})
		f.collections["ports"] = append(f.collections["ports"], map[string]any{"id": "p-" + id, "network_id": id,
			"fixed_ips": []map[string]string{{"subnet_id": "sn-" + id, "ip_address": fmt.Sprintf("10.0.%d.5", i)}}})
	}
	f.collections[rangesPath] = []map[string]any{{"id": "r1", "name": "x", "network_type": "vlan", "minimum": 1, "maximum": 9, "tags": []string{}}}
	return f
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func fakeReader(t *testing.T, f *fakeNeutron, pageSize int) *Reader {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	r, err := NewReader(context.Background(), Config{Endpoint: srv.URL + "/v2.0/", Auth: AuthNoauth, PageSize: pageSize}, discard())
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	return r
}

func TestReadPages(t *testing.T) {
	tests := []struct {
		name     string
		records  int
		pageSize int
		maxLimit int
		// wantRequests: the extensions request, then per collection the
		// pages (a full last page costs one more request), then the one
		// range's allocations.
		wantRequests int64
	}{
		{name: "one page each", records: 5, pageSize: 10, wantRequests: 1 + 5 + 1},
		{name: "several pages, last one short", records: 5, pageSize: 2, wantRequests: 1 + 4*3 + 1 + 1},
		{name: "several pages, last one full", records: 6, pageSize: 2, wantRequests: 1 + 4*4 + 1 + 1},
		{name: "server caps the limit below the page size", records: 5, pageSize: 100, maxLimit: 2, wantRequests: 1 + 4*3 + 1 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(tt.records)
			f.maxLimit = tt.maxLimit
			r := fakeReader(t, f, tt.pageSize)
			s, err := r.Read(context.Background())
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			got := []int{len(s.Networks), len(s.Segments), len(s.Subnets), len(s.Ports), len(s.Ranges)}
			if want := []int{tt.records, tt.records, tt.records, tt.records, 1}; !slices.Equal(got, want) {
				t.Errorf("Read counts (networks, segments, subnets, ports, ranges) = %v, want %v", got, want)
			}
			if got := r.Requests(); got != tt.wantRequests {
				t.Errorf("Read made %d requests, want %d", got, tt.wantRequests)
			}
			if n := s.Networks[len(s.Networks)-1]; len(n.Segments) != 1 || n.Segments[0].SegmentationID != 100+tt.records-1 {
				t.Errorf("last network %+v, want one segment with the id sent as a string", n)
			}
		})
	}
}

func TestReadMarkerDeletedMidRead(t *testing.T) {
	tests := []struct {
		name    string
		page    int // after this page of networks
		deleted []string
	}{
		{name: "marker deleted", page: 2, deleted: []string{"id-05"}},
		{name: "marker and the record before deleted", page: 1, deleted: []string{"id-02", "id-01"}},
		{name: "every record of the first page deleted", page: 1, deleted: []string{"id-00", "id-01", "id-02"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(10)
			f.afterPage = func(f *fakeNeutron, collection string, page int) {
				if collection == "networks" && page == tt.page {
					f.remove("networks", tt.deleted...)
				}
			}
			s, err := fakeReader(t, f, 3).Read(context.Background())
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			var got []string
			for _, n := range s.Networks {
				got = append(got, n.ID)
			}
			var want []string
			for i := range 10 {
				if id := fmt.Sprintf("id-%02d", i); !slices.Contains(tt.deleted, id) || i < 3*tt.page {
					want = append(want, id)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("Read networks = %v, want %v (each once, in order)", got, want)
			}
		})
	}
}

func TestReadFailsWhole(t *testing.T) {
	for _, failOn := range []string{"networks 1", "ports 2", "segments 3", rangesPath + " 1"} {
		t.Run(failOn, func(t *testing.T) {
			f := newFake(5)
			f.failOn = failOn
			r := fakeReader(t, f, 2)
			s, err := r.Read(context.Background())
			if err == nil {
				t.Fatalf("Read with a failing page %q = %d networks, %d ports, want an error", failOn, len(s.Networks), len(s.Ports))
			}
			if s != nil {
				t.Errorf("Read returned a snapshot with its error %v", err)
			}
		})
	}
}

func TestReadNetworksFilters(t *testing.T) {
	f := newFake(5)
	r := fakeReader(t, f, 10)
	// The fake ignores filters; what matters is that every kind but ranges
	// is read and nothing is read for no ids.
	s, err := r.ReadNetworks(context.Background(), nil)
	if err != nil || len(s.Networks) != 0 || r.Requests() != 0 {
		t.Fatalf("ReadNetworks(nil) = %+v, %v after %d requests, want empty without requests", s, err, r.Requests())
	}
	s, err = r.ReadNetworks(context.Background(), []string{"id-01", "id-01", ""})
	if err != nil {
		t.Fatalf("ReadNetworks: %v", err)
	}
	if len(s.Networks) == 0 || len(s.Segments) == 0 || len(s.Subnets) == 0 || len(s.Ports) == 0 || s.Ranges != nil {
		t.Errorf("ReadNetworks = %d networks, %d segments, %d subnets, %d ports, ranges %v; want all but ranges",
			len(s.Networks), len(s.Segments), len(s.Subnets), len(s.Ports), s.Ranges)
	}
}

func TestNewReaderConfig(t *testing.T) {
	tests := []struct {
		cfg     Config
		wantErr bool
	}{
		{cfg: Config{Auth: AuthNoauth, Endpoint: "http://127.0.0.1:9696"}},
		{cfg: Config{Endpoint: "https://neutron.example:9696/v2.0"}},
		{cfg: Config{Auth: AuthNoauth}, wantErr: true},
		{cfg: Config{Auth: AuthNoauth, Endpoint: "127.0.0.1:9696"}, wantErr: true},
		{cfg: Config{Auth: "password", Endpoint: "http://x"}, wantErr: true},
	}
	for _, tt := range tests {
		_, err := NewReader(context.Background(), tt.cfg, discard())
		if (err != nil) != tt.wantErr {
			t.Errorf("NewReader(%+v) error = %v, want error %v", tt.cfg, err, tt.wantErr)
		}
	}
}

func TestBaseURL(t *testing.T) {
	tests := map[string]string{
		"http://127.0.0.1:9696":           "http://127.0.0.1:9696/",
		"http://127.0.0.1:9696/":          "http://127.0.0.1:9696/",
		"http://127.0.0.1:9696/v2.0":      "http://127.0.0.1:9696/",
		"https://cloud.example/network/":  "https://cloud.example/network/",
		"https://cloud.example/net/v2.0/": "https://cloud.example/net/",
	}
	for in, want := range tests {
		if got, err := baseURL(in); err != nil || got != want {
			t.Errorf("baseURL(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
}
