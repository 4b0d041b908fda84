package sim

import "time"

// heapEntry is one element of the kernel's binary heap, the queue of a
// short run (see Kernel.radix). The ordering key lives in the heap itself
// so that sifts do not chase pointers into the slab; the callback stays in
// the slab, which a short queue keeps in the cache.
type heapEntry struct {
	at   time.Duration
	seq  uint64
	slot int32
}

func (a heapEntry) before(b heapEntry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// heapPush queues slot's event, scheduled seq-th, at at.
func (k *Kernel) heapPush(at time.Duration, seq uint64, slot int32) {
	k.heap = append(k.heap, heapEntry{at: at, seq: seq, slot: slot})
	k.up(len(k.heap) - 1)
}

// removeAt deletes heap element i, keeping the heap ordered. A cancelled
// event leaves the heap at once: its position is in the slab.
func (k *Kernel) removeAt(i int) {
	h := k.heap
	last := len(h) - 1
	k.heap = h[:last]
	if i < last {
		h[i] = h[last]
		if !k.down(i) { // down and up record the moved entry's position
			k.up(i)
		}
	}
}

func (k *Kernel) up(i int) {
	h := k.heap
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(h[p]) {
			break
		}
		h[i] = h[p]
		k.slab[h[i].slot].pos = int32(i)
		i = p
	}
	h[i] = e
	k.slab[e.slot].pos = int32(i)
}

// down sifts element i towards the leaves and reports whether it moved.
func (k *Kernel) down(i0 int) bool {
	h := k.heap
	n := len(h)
	i := i0
	e := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			c = r
		}
		if !h[c].before(e) {
			break
		}
		h[i] = h[c]
		k.slab[h[i].slot].pos = int32(i)
		i = c
	}
	h[i] = e
	k.slab[e.slot].pos = int32(i)
	return i > i0
}
