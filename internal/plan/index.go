package plan

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/ipsync/ipsync/internal/resource"
)

// index finds current objects by identity. It is an open-addressing table
// of 8-byte slots (32 bits of hash, 32 bits of position), which stays far
// more cache-friendly than a Go map keyed by identity: at a million objects
// that is the difference between a plan in a fraction of a second and one
// in several. A slot whose hash bits match is verified against the object
// itself, so lookups are exact.
type index struct {
	slots []uint64 // hash<<32 | position+1; 0 is empty
	objs  []resource.Object
}

// newIndex makes an index for n of objs, which add then records one by one
// with their hashes. Its size is not a power of two: at two thirds full,
// lookups still end in the cache line they start in, and a plan writes a
// third less of index than at half full.
func newIndex(objs []resource.Object, n int) *index {
	slots := make([]uint64, n+n/2+1)
	// Fresh memory is zero already, but a table's first touch of a page
	// is a read (is the slot free?): the kernel maps its zero page, then
	// the write copies it and flushes the mapping from the TLB of every
	// core running the process, an interrupt of each in a VM. Writing
	// the table first faults each page in once.
	clear(slots)
	return &index{slots: slots, objs: objs}
}

// start is the slot where a search for h starts: the low half of the
// hash scaled to the size of the table.
func (x *index) start(h uint64) int { return int(h & 0xffffffff * uint64(len(x.slots)) >> 32) }

// next is the slot after s, wrapping around.
func (x *index) next(s int) int {
	if s++; s == len(x.slots) {
		return 0
	}
	return s
}

// add records objs[i], whose identity's hash is h. If an object of that
// identity is present already, it returns that one's position and false.
// Identities are read only when 32 bits of hash match, which is almost
// always a repeated identity: adding touches the table, not the objects.
func (x *index) add(h uint64, i int) (int, bool) {
	tag := h >> 32 << 32
	for s := x.start(h); ; s = x.next(s) {
		e := x.slots[s]
		if e == 0 {
			x.slots[s] = tag | uint64(i+1)
			return i, true
		}
		if e&^0xffffffff == tag {
			if first := int(e&0xffffffff) - 1; x.objs[first].Identity() == x.objs[i].Identity() {
				return first, false
			}
		}
	}
}

// A shard's index is given 32 bits of each hash: 16 that pick where a
// search starts (enough for the tens of thousands of slots of a shard),
// and 16 of tag, so that the runs of hashes it is built from take 4
// bytes an object instead of 8. A lookup then reads an object it does
// not want once in 65,536 slots it passes, which costs nothing to
// speak of. Bits 32 to 47, never seen by the index, pick the shard.
const shardBits = 0xffff0000_ffff0000

// packShard and unpackShard store shardBits of a hash in 32 bits.
func packShard(h uint64) uint32   { return uint32(h>>48)<<16 | uint32(h>>16)&0xffff }
func unpackShard(k uint32) uint64 { return uint64(k>>16)<<48 | uint64(k&0xffff)<<16 }

// first reads the slot where a lookup of h starts. Reading the slots of
// several lookups before making them lets the core wait for their cache
// misses at once instead of one after the other.
func (x *index) first(h uint64) uint64 { return x.slots[x.start(h)] }

// get returns the position of the object with identity id, whose hash is
// h; e is first(h).
func (x *index) get(h uint64, id *resource.Identity, e uint64) (int, bool) {
	tag := h >> 32 << 32
	for s := x.start(h); ; s = x.next(s) {
		if e == 0 {
			return 0, false
		}
		if e&^0xffffffff == tag {
			if i := int(e&0xffffffff) - 1; x.objs[i].Identity() == *id {
				return i, true
			}
		}
		e = x.slots[x.next(s)]
	}
}

// hasher hashes identities with one seed. It remembers the hash of the
// last name: objects in a row mostly share their namespace or group, and
// comparing a name costs less than hashing it.
type hasher struct {
	seed     maphash.Seed
	name     string
	nameHash uint64
}

func newHasher(seed maphash.Seed) *hasher {
	return &hasher{seed: seed, nameHash: maphash.String(seed, "")}
}

// hash mixes the identity's parts: the name's maphash, and the address
// and number folded in by multiplication, then one round of mixing that
// spreads every bit over the slot and the tag. Distinct parts of one
// name give distinct values before the mixing, which keeps them apart
// after it. maphash.Comparable on the whole struct costs several times as
// much: it also hashes the kind's string and the address's zone handle.
func (x *hasher) hash(id *resource.Identity) uint64 {
	if id.Name != x.name {
		x.name, x.nameHash = id.Name, maphash.String(x.seed, id.Name)
	}
	// An IPv4 address as 4 bytes: As16 of every address cost a quarter
	// of the hash, the core waiting for 16 bytes it had just stored as
	// two halves.
	var hi, lo uint64
	switch {
	case id.Addr.Is4():
		a := id.Addr.As4()
		lo = uint64(binary.BigEndian.Uint32(a[:]))
	case id.Addr.Is6():
		a := id.Addr.As16()
		hi, lo = binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(a[8:])
	}
	num := uint64(id.Num)<<16 | kindBits(id.Kind)
	return mix(x.nameHash ^ hi*0x9e3779b97f4a7c15 ^ lo*0xc2b2ae3d27d4eb4f ^ num*0x165667b19e3779f9)
}

// kindBits tells kinds apart, for hashing, from their names' length and
// first letter, which is cheaper than finding their rank.
func kindBits(k resource.Kind) uint64 {
	if k == "" {
		return 0
	}
	return uint64(len(k))<<8 | uint64(k[0])
}

// mix is the finalizer of SplitMix64: every input bit affects every output bit.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
