package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSlotsReuseHandlesLastInFirstOut(t *testing.T) {
	var s Slots[*int]
	a, b, c := new(int), new(int), new(int)
	ha, hb := s.Put(a), s.Put(b)
	assert.Equal(t, []int32{0, 1}, []int32{ha, hb})
	assert.Equal(t, 2, s.Len())

	assert.Same(t, a, s.Take(ha))
	assert.Nil(t, s.items[ha], "a taken slot keeps no reference")
	assert.Equal(t, 1, s.Len())

	assert.Equal(t, ha, s.Put(c), "the freed handle is reused")
	assert.Same(t, b, s.Take(hb))
	assert.Same(t, c, s.Take(ha))
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, ha, s.Put(a), "last freed, first reused")
}
