package plan

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// tuning is how the work is split; tests choose it to run the parallel
// paths on a few objects.
type tuning struct {
	workers  int // goroutines
	chunk    int // objects a goroutine takes at a time, at most 1<<16
	perShard int // current objects an index holds, about
}

func defaultTuning(objects int) tuning {
	return tuning{workers: workerCount(objects), chunk: 16 << 10, perShard: 16 << 10}
}

// workerCount uses all cores only where it pays for starting goroutines.
func workerCount(objects int) int {
	if objects < 50_000 {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), 8)
}

// each runs fn(w, k) for every k below n on up to workers goroutines,
// w being the goroutine's number, below workers. They take the next k
// as they finish one: on shared cores one may run slower than another,
// and a fixed split would wait for it. Callers keep each k's results
// apart and join them in order, so the outcome does not depend on which
// goroutine ran what; w only picks scratch space to reuse.
func each(n, workers int, fn func(w, k int)) {
	if workers <= 1 || n <= 1 {
		for k := range n {
			fn(0, k)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(workers, n) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				fn(w, k)
			}
		})
	}
	wg.Wait()
}

// chunks is how many chunks of size hold n items.
func chunks(n, size int) int { return (n + size - 1) / size }

// bounds are the first and last+1 item of chunk k of size.
func bounds(k, size, n int) (int, int) { return k * size, min(n, (k+1)*size) }
