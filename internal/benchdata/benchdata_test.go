package benchdata

import (
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// TestStateKeysAreDistinct: each side holds an object once, as a server
// does; the benchmarks plan it at 1M objects, and keys repeated by the
// generator would be planned as no server's data is.
func TestStateKeysAreDistinct(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	desired, current := State(n, "me")
	for side, objs := range map[string][]resource.Object{"desired": desired, "current": current} {
		seen := make(map[resource.Identity]int, len(objs))
		for i, o := range objs {
			id := o.Identity()
			if j, ok := seen[id]; ok {
				t.Fatalf("%s objects %d and %d have one key %v", side, j, i, o.Key())
			}
			seen[id] = i
		}
	}
}
