package plan

import (
	"hash/maphash"
	"math/bits"

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
	mask  uint64
	objs  []resource.Object
}

// newIndex makes an index for n of objs, which add then records one by one
// with their hashIdentity hashes.
func newIndex(objs []resource.Object, n int) *index {
	size := uint64(1) << bits.Len64(uint64(2*n+1)) // load factor <= 1/2
	return &index{slots: make([]uint64, size), mask: size - 1, objs: objs}
}

// add records objs[i] under id, whose hash is h, and reports false if id is already present.
func (x *index) add(h uint64, id resource.Identity, i int) bool {
	tag := h >> 32 << 32
	for s := h & x.mask; ; s = (s + 1) & x.mask {
		e := x.slots[s]
		if e == 0 {
			x.slots[s] = tag | uint64(i+1)
			return true
		}
		if e&^0xffffffff == tag && x.objs[e&0xffffffff-1].Identity() == id {
			return false
		}
	}
}

// get returns the position of the object with identity id.
func (x *index) get(h uint64, id resource.Identity) (int, bool) {
	tag := h >> 32 << 32
	for s := h & x.mask; ; s = (s + 1) & x.mask {
		e := x.slots[s]
		if e == 0 {
			return 0, false
		}
		if e&^0xffffffff == tag {
			if i := int(e&0xffffffff) - 1; x.objs[i].Identity() == id {
				return i, true
			}
		}
	}
}

// hash mixes the identity's parts. Hashing the name with maphash and folding
// in the address and number by multiplication is about three times cheaper
// than maphash.Comparable on the whole struct, which also hashes the kind's
// string and the address's zone handle.
func hashIdentity(seed maphash.Seed, id resource.Identity) uint64 {
	a := id.Addr.As16()
	hi := uint64(a[0])<<56 | uint64(a[1])<<48 | uint64(a[2])<<40 | uint64(a[3])<<32 | uint64(a[4])<<24 | uint64(a[5])<<16 | uint64(a[6])<<8 | uint64(a[7])
	lo := uint64(a[8])<<56 | uint64(a[9])<<48 | uint64(a[10])<<40 | uint64(a[11])<<32 | uint64(a[12])<<24 | uint64(a[13])<<16 | uint64(a[14])<<8 | uint64(a[15])
	h := maphash.String(seed, id.Name)
	h = mix(h ^ hi)
	h = mix(h ^ lo)
	h = mix(h ^ uint64(id.Num)<<8 ^ uint64(id.Kind.Rank()+1))
	return h
}

// mix is the finalizer of SplitMix64: every input bit affects every output bit.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
