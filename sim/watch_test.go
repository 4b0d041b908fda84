package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestWatchIsCalledEveryNEventsAndCanStop(t *testing.T) {
	k := New(1)
	var tick Func
	tick = func(uint64) { k.After(time.Millisecond, tick, 0) }
	k.Schedule(0, tick, 0)
	var seen []uint64
	k.Watch(10, func() bool {
		seen = append(seen, k.Fired())
		return k.Fired() < 30
	})
	k.RunUntil(time.Hour)
	assert.Equal(t, []uint64{10, 20, 30}, seen)
	assert.Equal(t, uint64(30), k.Fired(), "the run stops right after the watch says so")
	assert.Equal(t, 29*time.Millisecond, k.Now(), "a stopped run leaves time at its last event")

	// Without a watch, the same run goes to its end.
	k2 := New(1)
	var tick2 Func
	tick2 = func(uint64) { k2.After(time.Millisecond, tick2, 0) }
	k2.Schedule(0, tick2, 0)
	k2.Watch(10, func() bool { return false })
	k2.Watch(0, nil)
	k2.RunUntil(time.Second)
	assert.Equal(t, uint64(1001), k2.Fired())
}
