package nautobot

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestChangeLogGrowsDuringRead reads the change log while another writer
// (another site's agent) adds to it between pages: the rows it adds shift
// the pages under the read. The read must not fail for that, must return
// every entry that was there before it started, and none twice.
func TestChangeLogGrowsDuringRead(t *testing.T) { servertest.Each(t, changeLogGrowsDuringRead) }

func changeLogGrowsDuringRead(t *testing.T, srv *servertest.Server) {
	ctx := context.Background()
	run := fmt.Sprint(time.Now().UnixNano())
	var before []string
	for i := range 12 {
		var out struct {
			ID string `json:"id"`
		}
		srv.Call(t, http.MethodPost, "/api/ipam/namespaces/", map[string]any{"name": fmt.Sprintf("grow-%s-%d", run, i)}, &out)
		before = append(before, out.ID)
	}
	// Another writer adds two entries before every page but the first.
	writes := 0
	e := newEnvOn(t, srv, func(c *Config) { c.PageSize = 3 }, true)
	intercept(e, func(r *http.Request, _ []byte) (int, string, bool) {
		if r.Method == http.MethodGet && r.URL.Path == pathObjectChanges && r.URL.Query().Get("offset") != "" {
			for range 2 {
				writes++
				if err := srv.CallErr(http.MethodPost, "/api/ipam/namespaces/", map[string]any{"name": fmt.Sprintf("grow-%s-w%d", run, writes)}, nil); err != nil {
					t.Errorf("write between pages: %v", err)
				}
			}
		}
		return 0, "", false
	})
	log := e.c.changes()
	first, ok, err := log.Newest(ctx, []string{"ipam.namespace"})
	if err != nil || !ok {
		t.Fatalf("Newest = %+v, %v, %v; want an entry", first, ok, err)
	}
	got, err := log.Since(ctx, []string{"ipam.namespace"}, first.Time.Add(-time.Minute))
	if err != nil {
		t.Fatalf("Since while the log grows: %v", err)
	}
	if writes == 0 {
		t.Fatal("nothing was written between pages; the test tests nothing")
	}
	ids := map[string]bool{}
	objects := map[string]bool{}
	for _, en := range got {
		if ids[en.ID] {
			t.Errorf("entry %s came twice", en.ID)
		}
		ids[en.ID] = true
		objects[en.ObjectID] = true
	}
	for _, id := range before {
		if !objects[id] {
			t.Errorf("the create of namespace %s, logged before the read, is missing", id)
		}
	}
}
