package netboxtest

import (
	"fmt"
	"testing"
)

func TestDeleteBatches(t *testing.T) {
	flat := func(n int) []map[string]any {
		var objs []map[string]any
		for i := range n {
			objs = append(objs, map[string]any{"id": float64(i + 1)})
		}
		return objs
	}
	for _, tt := range []struct {
		name string
		objs []map[string]any
		want string // ids per request; the length of a long one
	}{
		{"none", nil, "[]"},
		{"one request", flat(3), "[[1 2 3]]"},
		{"batches of 500", flat(1001), "[500 500 [1001]]"},
		{"deepest first, a request per depth", []map[string]any{
			{"id": 1.0, "_depth": 0.0}, {"id": 2.0, "_depth": 1.0}, {"id": 3.0, "_depth": 2.0}, {"id": 4.0, "_depth": 1.0},
		}, "[[3] [2 4] [1]]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []any
			for _, b := range deleteBatches(tt.objs) {
				if len(b) > 10 {
					got = append(got, len(b))
					continue
				}
				var ids []any
				for _, o := range b {
					if o["changelog_message"] != emptiedMessage {
						t.Errorf("delete of %v without the harness's changelog message", o["id"])
					}
					ids = append(ids, o["id"])
				}
				got = append(got, ids)
			}
			if s := fmt.Sprint(got); s != tt.want {
				t.Errorf("deleteBatches = %s, want %s", s, tt.want)
			}
		})
	}
}
