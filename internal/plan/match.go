package plan

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/ipsync/ipsync/internal/resource"
)

// matcher pairs desired objects with the current objects of their
// identity, on all cores, touching each object as few times as it can:
// at a million objects a side the plan is bound by reading memory, not by
// computing. Current objects are hashed once and indexed by hash; each
// desired object is then hashed, looked up and compared in one visit.
//
// Which desired object of a repeated identity is matched (the first) is
// settled with a compare-and-swap on the current object's claim, and
// the one that finds it taken by an earlier one, or loses it to one,
// becomes a conflict: the plan is the one a single pass in desired order
// makes, whichever goroutine ran what.
type matcher struct {
	desired, current []resource.Object
	policy           Policy
	seed             maphash.Seed
	tuning

	flags []uint8 // of the current objects
	// claims are, for each current object, 1 + the position of the
	// first desired object matched to it; 0 for none. They are read and
	// written with sync/atomic's functions: their memory held the
	// shards' runs of hashes before (see indexCurrent).
	claims []uint32
	shards []*index
	// firstOf maps a current object whose identity an earlier one holds
	// to that earlier one, the one in the index.
	firstOf map[int32]int32
	owned   int // current objects with the owner's marker, once each identity
	blank   [kindCount]resource.Object
}

// Flags of a current object.
const (
	ownedFlag    uint8 = 1 << iota // carries the policy owner's marker
	repeatedFlag                   // an earlier current object has its identity
	heldTwice                      // the first of an identity the target holds more than once
)

// matching is what match hands on: the plan of the desired objects, the
// deletes apart (the mass-delete guard needs their number first), and
// the objects that have unique keys, in order.
type matching struct {
	plan    *Plan
	deletes []Change
	keyed   keyed
}

// keyed are the positions of the objects with unique keys besides the
// natural key, so that checking those does not visit every object again.
type keyed struct{ desired, current []int32 }

func match(desired, current []resource.Object, policy Policy, t tuning) matching {
	m := &matcher{desired: desired, current: current, policy: policy, seed: maphash.MakeSeed(), tuning: t, blank: blanks(),
		flags:  make([]uint8, len(current)),
		shards: make([]*index, shardCount(len(current), t.perShard))}
	var out matching
	var runs []shardRuns
	out.keyed.current, runs = m.hashCurrent()
	m.indexCurrent(runs)
	parts := m.matchDesired()
	var skipped Summary
	out.deletes, skipped = m.deletes()
	out.plan = m.settle(parts, len(out.deletes))
	for k, counts := range skipped {
		out.plan.Summary.add(k, Skip, counts[Skip])
	}
	for _, pt := range parts {
		out.keyed.desired = append(out.keyed.desired, pt.keyed...)
	}
	return out
}

func (m *matcher) hasher() *hasher { return newHasher(m.seed) }

// shardOf picks an index from bits 32 to 47 of the hash, which no index
// sees (shardBits), so shards do not leave index slots unused. The
// number of shards is a power of two.
func (m *matcher) shardOf(h uint64) int { return int(h>>32) & (len(m.shards) - 1) }

// part is the plan of one chunk of desired objects.
type part struct {
	*Plan
	at      []int32 // the desired position of each change
	demoted []demotion
	keyed   []int32
	keys    []resource.UniqueKey // scratch
}

// demotion records that desired object d lost current object c to an
// earlier desired object of the same identity.
type demotion struct{ d, c int32 }

// matchDesired plans each chunk of desired objects.
func (m *matcher) matchDesired() []*part {
	parts := make([]*part, chunks(len(m.desired), m.chunk))
	each(len(parts), m.workers, func(_, k int) {
		pt := &part{Plan: &Plan{Policy: m.policy, Summary: Summary{}}}
		lo, hi := bounds(k, m.chunk, len(m.desired))
		m.matchChunk(pt, lo, hi)
		parts[k] = pt
	})
	return parts
}

// batch is how many lookups read their first slot before any is made.
const batch = 16

// matchChunk plans desired objects lo to hi, batch by batch.
func (m *matcher) matchChunk(pt *part, lo, hi int) {
	h := m.hasher()
	var ids [batch]resource.Identity
	var hashes, slots [batch]uint64
	var shards [batch]*index
	for b0 := lo; b0 < hi; b0 += batch {
		n := min(batch, hi-b0)
		for b := range n {
			ids[b] = m.desired[b0+b].Identity()
			full := h.hash(&ids[b])
			shards[b], hashes[b] = m.shards[m.shardOf(full)], full&shardBits
		}
		for b := range n {
			slots[b] = shards[b].first(hashes[b])
		}
		for b := range n {
			j := b0 + b
			before := len(pt.Changes)
			i, ok := shards[b].get(hashes[b], &ids[b], slots[b])
			m.matchOne(pt, j, i, ok)
			if len(pt.Changes) > before {
				pt.at = append(pt.at, int32(j))
			}
		}
	}
}

// matchOne plans desired object j, found at current position i or not
// found, as the first of its identity: settle corrects that where an
// earlier one turns up.
func (m *matcher) matchOne(pt *part, j, i int, found bool) {
	d := m.desired[j]
	if pt.keys = resource.AppendUniqueKeys(pt.keys[:0], d); len(pt.keys) > 0 {
		pt.keyed = append(pt.keyed, int32(j))
	}
	switch {
	case !found:
		pt.add(Change{Action: Create, Key: d.Key(), Desired: d, Fields: d.Diff(m.empty(d))})
	case !m.claim(pt, i, j):
		pt.add(declaredTwice(d, m.policy))
	case m.flags[i]&heldTwice != 0:
		pt.add(Change{Action: Conflict, Key: d.Key(), Desired: d, Current: m.current[i], Reason: "the target holds more than one object with this key; remove the duplicate by hand"})
	default:
		pt.compare(d, m.current[i])
	}
}

// claim matches current object i to desired object j unless an earlier
// desired object has it. It takes i from a later one, which it records
// for settle.
func (m *matcher) claim(pt *part, i, j int) bool {
	for {
		was := atomic.LoadUint32(&m.claims[i])
		if was != 0 && int(was) <= j {
			return false
		}
		if atomic.CompareAndSwapUint32(&m.claims[i], was, uint32(j+1)) {
			if was != 0 {
				pt.demoted = append(pt.demoted, demotion{d: int32(was - 1), c: int32(i)})
			}
			return true
		}
	}
}
