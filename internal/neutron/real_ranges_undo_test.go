package neutron

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestRealCreateRangeAnswerLost: the real Neutron creates a range whose
// answer never reaches ipsync; ipsync finds it by name and deletes it, so
// no unmarked range is left to conflict with every later plan.
func TestRealCreateRangeAnswerLost(t *testing.T) {
	base := realNeutron(t)
	a := newAdmin(t, base)
	run := newRunID()
	ctx := context.Background()

	// A proxy that forwards every request but cuts the connection instead
	// of answering the range create.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read whole: Neutron does not take a chunked body.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, rangesPath) {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)

	r, err := NewReader(ctx, Config{Endpoint: proxy.URL, Auth: AuthNoauth}, discard())
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	w := NewRangeWriter(r, RangeConfig{Site: "it"}, discard())
	listed := func() []resource.Object {
		objs, err := w.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		var out []resource.Object
		for _, o := range objs {
			if strings.HasPrefix(o.Key().Name, run.name) {
				out = append(out, o)
			}
		}
		return out
	}
	t.Cleanup(func() {
		for _, o := range listed() {
			a.remove(rangesPath, o.Meta().ID)
		}
	})

	d := &resource.SegmentRange{M: resource.Meta{Owner: resource.StaticOwner("it-spec")}, Name: run.name + "-vni", Site: "it",
		NetworkType: resource.NetworkVXLAN, Minimum: 900, Maximum: 950, Shared: true}
	_, err = w.Apply(ctx, []plan.Change{{Action: plan.Create, Key: d.Key(), Desired: d}})
	if err == nil || !strings.Contains(err.Error(), "deleted it again") {
		t.Fatalf("Apply error = %v, want the create's range found and deleted again", err)
	}
	if left := listed(); len(left) != 0 {
		t.Errorf("Neutron still holds %d range(s) of the cut-off create: %v", len(left), left[0].Meta())
	}
}
