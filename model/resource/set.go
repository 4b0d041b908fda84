package resource

import (
	"math/bits"
	"slices"
)

// blockBits is the span of elements one block of an elemSet covers: 4096
// consecutive values in 512 bytes. A client's elements are its serials
// (client<<40 | serial), which rise by one per lock value or element it
// draws, so its elements fill a block to a good fraction and the final set
// of a long run costs a few bits per element, not the 8 bytes of a list.
const blockBits = 12

// block is one bitmap of 1<<blockBits elements.
type block [1 << blockBits / 64]uint64

// elemSet is a multiset of elements, as the version tree has it: the
// number of nodes on the current version's path that add each element. The
// bitmap says which elements are present; the few written more than once
// have their count beyond one in extra. Lookups by key only, never an
// iteration of a map, so that nothing depends on map order.
type elemSet struct {
	index  map[uint64]int32 // key (element >> blockBits) -> blocks index
	blocks []block
	extra  map[uint64]uint32 // element -> count beyond one
	n      int               // distinct elements present
}

// find returns the block of e, or nil if none was made.
func (s *elemSet) find(e uint64) *block {
	i, ok := s.index[e>>blockBits]
	if !ok {
		return nil
	}
	return &s.blocks[i]
}

// has reports whether e is present.
func (s *elemSet) has(e uint64) bool {
	b := s.find(e)
	return b != nil && b[e%(1<<blockBits)/64]&(1<<(e%64)) != 0
}

// count is how many times e is present.
func (s *elemSet) count(e uint64) uint32 {
	if !s.has(e) {
		return 0
	}
	return 1 + s.extra[e]
}

// inc adds e once more.
func (s *elemSet) inc(e uint64) {
	b := s.find(e)
	if b == nil {
		if s.index == nil {
			s.index = make(map[uint64]int32)
		}
		s.index[e>>blockBits] = int32(len(s.blocks))
		s.blocks = append(s.blocks, block{})
		b = &s.blocks[len(s.blocks)-1]
	}
	w, bit := &b[e%(1<<blockBits)/64], uint64(1)<<(e%64)
	if *w&bit == 0 {
		*w |= bit
		s.n++
		return
	}
	if s.extra == nil {
		s.extra = make(map[uint64]uint32)
	}
	s.extra[e]++
}

// dec removes e once; e must be present. An emptied block stays, to be
// filled again: blocks are few, and elements are rarely removed.
func (s *elemSet) dec(e uint64) {
	if c := s.extra[e]; c > 0 {
		if c == 1 {
			delete(s.extra, e)
		} else {
			s.extra[e] = c - 1
		}
		return
	}
	if !s.has(e) {
		panic("resource: broken invariant: removing an absent element")
	}
	s.find(e)[e%(1<<blockBits)/64] &^= 1 << (e % 64)
	s.n--
}

// list returns the distinct elements, sorted: O(elements + blocks·log
// blocks).
func (s *elemSet) list() []uint64 {
	keys := make([]uint64, 0, len(s.index))
	for k := range s.index {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the order of the map's iteration goes no further
	out := make([]uint64, 0, s.n)
	for _, k := range keys {
		b := &s.blocks[s.index[k]]
		for i, w := range b {
			for ; w != 0; w &= w - 1 {
				out = append(out, k<<blockBits|uint64(i)*64|uint64(bits.TrailingZeros64(w)))
			}
		}
	}
	return out
}
