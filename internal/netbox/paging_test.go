package netbox

import (
	"context"
	"fmt"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestPagingAdvances reads VRFs from a real NetBox in pages of 2: every
// page goes on after the last key read, all objects come once, and a
// number of objects that fills the pages exactly ends with an empty page.
func TestPagingAdvances(t *testing.T) {
	for _, n := range []int{5, 6} {
		t.Run(fmt.Sprint(n, " objects"), func(t *testing.T) {
			e := realEnv(t, func(c *Config) { c.PageSize = 2 }, false)
			ctx := context.Background()
			var objs []resource.Object
			for i := range n {
				objs = append(objs, &resource.Namespace{M: meta(), Name: fmt.Sprintf("page-%d", i)})
			}
			if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
				t.Fatal(err)
			}
			e.s.ResetCounts()
			got, err := e.c.List(ctx, scope.Scope{Owner: owner, Kinds: []resource.Kind{resource.KindNamespace}})
			if err != nil {
				t.Fatal(err)
			}
			sameAs(t, objs, got)
			if len(got) != n+1 { // and the global table
				t.Errorf("List read %d namespaces, want %d", len(got), n+1)
			}
			if pages := e.s.Requests("GET", "/api/ipam/vrfs/"); pages != n/2+1 {
				t.Errorf("List read %d pages of VRFs, want %d", pages, n/2+1)
			}
		})
	}
}
