package plan

import (
	"math/bits"
	"slices"
)

// shardCount is how many indexes hold n current objects: enough that
// each is a few hundred KiB, which stays in a core's cache while it is
// built. One index of all objects, filled in their order, missed the
// cache on nearly every insert.
func shardCount(n, perShard int) int { return 1 << bits.Len(uint(n/perShard)) }

// hashCurrent hashes the current objects' identities and notes their
// flags and unique keys while each object is at hand. counts are, for
// each chunk, how many of its objects fall in each shard.
func (m *matcher) hashCurrent() (keyed []int32, counts [][]int32) {
	n := chunks(len(m.current), m.chunk)
	keyedBy := make([][]int32, n)
	owned := make([]int, n)
	counts = make([][]int32, n)
	each(n, m.workers, func(k int) {
		h := m.hasher()
		count := make([]int32, len(m.shards))
		lo, hi := bounds(k, m.chunk, len(m.current))
		for i := lo; i < hi; i++ {
			c := m.current[i]
			m.hashes[i] = h.hash(c.Identity())
			count[m.shardOf(m.hashes[i])]++
			if c.Meta().Owner == m.policy.Owner {
				m.flags[i] = ownedFlag
				owned[k]++
			}
			if len(c.UniqueKeys()) > 0 {
				keyedBy[k] = append(keyedBy[k], int32(i))
			}
		}
		counts[k] = count
	})
	for _, o := range owned {
		m.owned += o
	}
	return slices.Concat(keyedBy...), counts
}

// indexCurrent sorts the hashes by shard, keeping the order of the
// objects within each (a counting sort, chunk by chunk), then builds each
// shard's index from its run of hashes. The first current object of an
// identity is indexed; the later ones are marked, and counted as owned
// no more.
func (m *matcher) indexCurrent(counts [][]int32) {
	next := make([][]int32, len(counts))
	start := make([]int, len(m.shards)+1)
	at := 0
	for s := range m.shards {
		start[s] = at
		for k := range counts {
			if s == 0 {
				next[k] = make([]int32, len(m.shards))
			}
			next[k][s] = int32(at)
			at += int(counts[k][s])
		}
	}
	start[len(m.shards)] = at
	hashes, positions := make([]uint64, len(m.hashes)), make([]int32, len(m.hashes))
	each(len(counts), m.workers, func(k int) {
		lo, hi := bounds(k, m.chunk, len(m.current))
		for i := lo; i < hi; i++ {
			s := m.shardOf(m.hashes[i])
			at := next[k][s]
			next[k][s]++
			hashes[at], positions[at] = m.hashes[i], int32(i)
		}
	})

	repeated := make([][][2]int32, len(m.shards))
	ownedAgain := make([]int, len(m.shards))
	each(len(m.shards), m.workers, func(s int) {
		x := newIndex(m.current, start[s+1]-start[s])
		for at := start[s]; at < start[s+1]; at++ {
			i := int(positions[at])
			first, ok := x.add(hashes[at], i)
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
		m.shards[s] = x
	})
	m.firstOf = map[int32]int32{}
	for s := range m.shards {
		for _, r := range repeated[s] {
			m.firstOf[r[0]] = r[1]
		}
		m.owned -= ownedAgain[s]
	}
}

// deletes plans the owner's current objects no desired object matched.
func (m *matcher) deletes(p *Plan) []Change {
	var del []Change
	for i, f := range m.flags {
		if f&ownedFlag == 0 || m.claims[i].Load() != 0 {
			continue
		}
		if f&repeatedFlag != 0 && m.claims[m.firstOf[int32(i)]].Load() != 0 {
			continue // a duplicate of a desired key: reported as a conflict
		}
		c := m.current[i]
		if m.policy.Mode != ModeSync {
			p.Summary.count(c.Kind(), Skip)
			continue
		}
		del = append(del, Change{Action: Delete, Key: c.Key(), Current: c, Fields: empty(c).Diff(c)})
	}
	return del
}
