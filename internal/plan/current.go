package plan

import (
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/ipsync/ipsync/internal/resource"
)

// shardCount is how many indexes hold n current objects: enough that
// each is a few hundred KiB, which stays in a core's cache while it is
// built. One index of all objects, filled in their order, missed the
// cache on nearly every insert.
func shardCount(n, perShard int) int { return 1 << bits.Len(uint(n/perShard)) }

// shardRuns are the hashes of one chunk of current objects sorted by
// shard, keeping the objects' order within each shard (a counting sort):
// shard s has entries start[s] to start[s+1], and offsets are the
// objects' positions in the chunk. Sorting chunk by chunk keeps what is
// written to memory a pass and a half of the hashes instead of three.
// Of each hash they keep what a shard's index reads (packShard).
type shardRuns struct {
	hashes  []uint32
	offsets []uint16
	start   []int32
}

// hashCurrent hashes the current objects' identities, sorted by shard,
// and notes their flags and unique keys while each object is at hand.
func (m *matcher) hashCurrent() ([]int32, []shardRuns) {
	n := chunks(len(m.current), m.chunk)
	keyed := make([][]int32, n)
	owned := make([]int, n)
	runs := make([]shardRuns, n)
	// One array holds the runs' hashes of all chunks, each chunk's where
	// its objects are, so that the claims can take it over.
	packed := make([]uint32, len(m.current))
	scratch := make([][]uint64, m.workers)
	each(n, m.workers, func(w, k int) {
		h := m.hasher()
		if scratch[w] == nil {
			scratch[w] = make([]uint64, m.chunk)
		}
		lo, hi := bounds(k, m.chunk, len(m.current))
		hashes := scratch[w][:hi-lo]
		start := make([]int32, len(m.shards)+1)
		var keys []resource.UniqueKey
		// Counted here and stored once: the chunks' counters share cache
		// lines, which the cores would pass to and fro at every object.
		var mine int
		var withKeys []int32
		for i := lo; i < hi; i++ {
			c := m.current[i]
			hashes[i-lo] = h.hash(new(c.Identity()))
			start[m.shardOf(hashes[i-lo])+1]++
			if c.Meta().Owner == m.policy.Owner {
				m.flags[i] = ownedFlag
				mine++
			}
			if keys = resource.AppendUniqueKeys(keys[:0], c); len(keys) > 0 {
				withKeys = append(withKeys, int32(i))
			}
		}
		owned[k], keyed[k] = mine, withKeys
		for s := range m.shards {
			start[s+1] += start[s]
		}
		r := shardRuns{hashes: packed[lo:hi], offsets: make([]uint16, len(hashes)), start: start}
		next := slices.Clone(start[:len(m.shards)])
		for off, x := range hashes {
			s := m.shardOf(x)
			r.hashes[next[s]], r.offsets[next[s]] = packShard(x), uint16(off)
			next[s]++
		}
		runs[k] = r
	})
	for _, o := range owned {
		m.owned += o
	}
	m.claims = packed
	return slices.Concat(keyed...), runs
}

// indexCurrent builds each shard's index from its runs, chunk after
// chunk. The first current object of an identity is indexed; the later
// ones are marked, and counted as owned no more. Then it clears the
// runs' hashes for the claims: clearing memory costs far less than
// faulting in fresh pages.
func (m *matcher) indexCurrent(runs []shardRuns) {
	repeated := make([][][2]int32, len(m.shards))
	ownedAgain := make([]int, len(m.shards))
	each(len(m.shards), m.workers, func(_, s int) {
		size := 0
		for _, r := range runs {
			size += int(r.start[s+1] - r.start[s])
		}
		x := newIndex(m.current, size)
		for k, r := range runs {
			for at := r.start[s]; at < r.start[s+1]; at++ {
				i := k*m.chunk + int(r.offsets[at])
				first, ok := x.add(unpackShard(r.hashes[at]), i)
				if ok {
					continue
				}
				m.flags[i] |= repeatedFlag
				m.flags[first] |= heldTwice
				repeated[s] = append(repeated[s], [2]int32{int32(i), int32(first)})
				if m.flags[i]&ownedFlag != 0 {
					ownedAgain[s]++
				}
			}
		}
		m.shards[s] = x
	})
	clear(m.claims)
	m.firstOf = map[int32]int32{}
	for s := range m.shards {
		for _, r := range repeated[s] {
			m.firstOf[r[0]] = r[1]
		}
		m.owned -= ownedAgain[s]
	}
}

// deletes plans the owner's current objects no desired object matched,
// chunk by chunk. It counts those the mode leaves alone apart, as skips.
func (m *matcher) deletes() ([]Change, Summary) {
	n := chunks(len(m.current), m.chunk)
	del := make([][]Change, n)
	skipped := make([]Summary, n)
	each(n, m.workers, func(_, k int) {
		var mine []Change
		skips := Summary{}
		lo, hi := bounds(k, m.chunk, len(m.current))
		for i := lo; i < hi; i++ {
			f := m.flags[i]
			if f&ownedFlag == 0 || atomic.LoadUint32(&m.claims[i]) != 0 {
				continue
			}
			if f&repeatedFlag != 0 && atomic.LoadUint32(&m.claims[m.firstOf[int32(i)]]) != 0 {
				continue // a duplicate of a desired key: reported as a conflict
			}
			c := m.current[i]
			if m.policy.Mode != ModeSync {
				skips.count(c.Kind(), Skip)
				continue
			}
			mine = append(mine, Change{Action: Delete, Key: c.Key(), Current: c, Fields: m.empty(c).Diff(c)})
		}
		del[k], skipped[k] = mine, skips
	})
	all := Summary{}
	for _, s := range skipped {
		for k, counts := range s {
			all.add(k, Skip, counts[Skip])
		}
	}
	return slices.Concat(del...), all
}
