package sim

import (
	"math/bits"
	"time"
)

// An event's heap key packs its sequence number above its slot, so that
// an entry is 16 bytes and comparing two is comparing two integers: keys
// are unique (one sequence number each), and ordered by sequence.
const (
	slotBits = 24
	slotMask = 1<<slotBits - 1
	maxSlot  = slotMask
	maxSeq   = 1<<(64-slotBits) - 1
)

// heapEntry is one pending event in the kernel's heap: its time and key.
type heapEntry struct {
	at  time.Duration
	key uint64 // seq<<slotBits | slot
}

// before compares (at, key) as one 128-bit number: the borrow out of a
// subtraction. It compiles to two instructions and no branch, which
// matters in the sifts, whose comparisons are coin tosses to a branch
// predictor (callgrind, a hold at 1,000 events: a bare binary heap
// mispredicts 5.9 branches, this heap 1.0). at is never negative
// (Schedule refuses the past, and time starts at zero), so it compares
// as unsigned.
func (a heapEntry) before(b heapEntry) bool { return a.less(b) != 0 }

// less is before as 1 or 0, for arithmetic on the result.
func (a heapEntry) less(b heapEntry) uint64 {
	_, borrow := bits.Sub64(a.key, b.key, 0)
	_, borrow = bits.Sub64(uint64(a.at), uint64(b.at), borrow)
	return borrow
}

// The heap is 4-ary: half a binary heap's depth, and a node's four
// children are 64 bytes, one cache line: the root is at index root, so
// that every family starts at a multiple of four, and a heap of a few
// thousand events, whose array the allocator aligns to a page, has a
// family per line. A sift then misses the cache at most once a level. Entries move by
// holes, not swaps, and each move records the entry's index in pos for
// Cancel.
const root = 3

// parent and firstChild are a node's family links, the root at index root.
func parent(i int) int     { return i/4 + 2 }
func firstChild(i int) int { return 4*i - 8 }

func (k *Kernel) push(e heapEntry) {
	k.heap = append(k.heap, e)
	k.up(len(k.heap)-1, e)
}

// removeAt deletes heap element i, keeping the heap ordered.
func (k *Kernel) removeAt(i int) {
	h := k.heap
	last := len(h) - 1
	e := h[last]
	k.heap = h[:last]
	if i < last {
		if i > root && e.before(h[parent(i)]) {
			k.up(i, e)
		} else {
			k.down(i, e)
		}
	}
}

// up places e at i or above.
func (k *Kernel) up(i int, e heapEntry) {
	h, pos := k.heap, k.pos
	for i > root {
		p := parent(i)
		if !e.before(h[p]) {
			break
		}
		h[i] = h[p]
		pos[h[i].key&slotMask] = int32(i)
		i = p
	}
	h[i] = e
	pos[e.key&slotMask] = int32(i)
}

// down places e at i or below. A full family of four is compared by a
// tournament whose comparisons select (conditional moves) rather than
// branch; only the test against e branches, once a level.
func (k *Kernel) down(i int, e heapEntry) {
	h, pos := k.heap, k.pos
	n := len(h)
	for {
		c := firstChild(i)
		if c+4 > n {
			break
		}
		f := (*[4]heapEntry)(h[c : c+4])
		// Selection by arithmetic on 0 and 1: the compiler turns the
		// same choices written as ifs into branches, mispredicted half
		// the time.
		a := f[1].less(f[0])
		b := 2 + f[3].less(f[2])
		a ^= (a ^ b) & -f[b&3].less(f[a&3])
		m := f[a&3]
		if !m.before(e) {
			h[i] = e
			pos[e.key&slotMask] = int32(i)
			return
		}
		h[i] = m
		pos[m.key&slotMask] = int32(i)
		i = c + int(a&3)
	}
	// The last, partial family.
	if c := firstChild(i); c < n {
		m := c
		for j := c + 1; j < n; j++ {
			if h[j].before(h[m]) {
				m = j
			}
		}
		if h[m].before(e) {
			h[i] = h[m]
			pos[h[i].key&slotMask] = int32(i)
			i = m
		}
	}
	h[i] = e
	pos[e.key&slotMask] = int32(i)
}
