package sim

// Slots is a table of values addressed by small integer handles: the state
// an event's uint64 argument stands for (an in-flight message, a timer's
// owner and tag), kept by value so that scheduling allocates nothing once
// the table has grown to its peak. Freed handles are reused last in, first
// out, so which handle a value gets depends only on the order of calls.
type Slots[T any] struct {
	items []T
	free  []int32
}

// Put stores v and returns its handle.
func (s *Slots[T]) Put(v T) int32 {
	if n := len(s.free); n > 0 {
		h := s.free[n-1]
		s.free = s.free[:n-1]
		s.items[h] = v
		return h
	}
	s.items = append(s.items, v)
	return int32(len(s.items) - 1)
}

// Alloc returns a free handle and a pointer to its slot, which holds the
// zero value: for a caller that fills a large value in place rather than
// building it and copying it in with Put. Handles come in Put's order; the
// pointer is valid until the next Put or Alloc.
func (s *Slots[T]) Alloc() (int32, *T) {
	if n := len(s.free); n > 0 {
		h := s.free[n-1]
		s.free = s.free[:n-1]
		return h, &s.items[h]
	}
	var zero T
	s.items = append(s.items, zero)
	h := int32(len(s.items) - 1)
	return h, &s.items[h]
}

// Take returns the value at h and frees h. The slot is zeroed so that the
// table keeps no reference to what it gave back.
func (s *Slots[T]) Take(h int32) T {
	v := s.items[h]
	var zero T
	s.items[h] = zero
	s.free = append(s.free, h)
	return v
}

// Free frees h and zeroes its slot, like Take without copying the value
// out: for a caller that has already read what it needs through At.
func (s *Slots[T]) Free(h int32) {
	var zero T
	s.items[h] = zero
	s.free = append(s.free, h)
}

// At returns a pointer to the value at h, for updating it in place; it is
// valid until h is taken.
func (s *Slots[T]) At(h int32) *T { return &s.items[h] }

// Len is the number of values stored.
func (s *Slots[T]) Len() int { return len(s.items) - len(s.free) }
