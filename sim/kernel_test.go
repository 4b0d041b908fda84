package sim

import (
	"fmt"
	"hash/fnv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventsFireInTimeThenInsertionOrder(t *testing.T) {
	k := New(1)
	var got []string
	log := func(name string) Func { return func(uint64) { got = append(got, fmt.Sprintf("%s@%v", name, k.Now())) } }
	k.Schedule(3*time.Second, log("c"), 0)
	k.Schedule(1*time.Second, log("a1"), 0)
	k.Schedule(1*time.Second, log("a2"), 0)
	k.Schedule(2*time.Second, log("b"), 0)
	k.Schedule(1*time.Second, log("a3"), 0)
	k.Run()
	assert.Equal(t, []string{"a1@1s", "a2@1s", "a3@1s", "b@2s", "c@3s"}, got)
	assert.Equal(t, uint64(5), k.Fired())
}

func TestEventsScheduledDuringAnEventAtTheSameTimeFireAfterIt(t *testing.T) {
	k := New(1)
	var got []string
	k.Schedule(time.Second, func(uint64) {
		got = append(got, "first")
		k.After(0, func(uint64) { got = append(got, "nested") }, 0)
	}, 0)
	k.Schedule(time.Second, func(uint64) { got = append(got, "second") }, 0)
	k.Run()
	assert.Equal(t, []string{"first", "second", "nested"}, got)
}

func TestCallbackReceivesItsArgument(t *testing.T) {
	k := New(1)
	var got []uint64
	f := func(a uint64) { got = append(got, a) }
	for i := uint64(0); i < 5; i++ {
		id := k.Schedule(time.Duration(5-i), f, i)
		arg, ok := k.Arg(id)
		assert.True(t, ok)
		assert.Equal(t, i, arg)
	}
	k.Run()
	assert.Equal(t, []uint64{4, 3, 2, 1, 0}, got)
}

func TestCancel(t *testing.T) {
	k := New(1)
	var got []int
	ids := make([]EventID, 10)
	for i := range ids {
		ids[i] = k.Schedule(time.Duration(i)*time.Millisecond, func(uint64) { got = append(got, i) }, 0)
	}
	assert.True(t, k.Cancel(ids[3]))
	assert.True(t, k.Cancel(ids[0]))
	assert.True(t, k.Cancel(ids[9]))
	assert.False(t, k.Cancel(ids[3]), "second cancel of the same event")
	assert.False(t, k.Cancel(EventID{}), "zero ID")
	at, ok := k.Scheduled(ids[5])
	assert.True(t, ok)
	assert.Equal(t, 5*time.Millisecond, at)
	_, ok = k.Scheduled(ids[3])
	assert.False(t, ok)
	_, ok = k.Arg(ids[3])
	assert.False(t, ok, "a cancelled event has no argument")
	k.Run()
	assert.Equal(t, []int{1, 2, 4, 5, 6, 7, 8}, got)
	assert.False(t, k.Cancel(ids[5]), "cancel after firing")
}

func TestStaleIDDoesNotCancelAReusedSlot(t *testing.T) {
	k := New(1)
	fired := 0
	old := k.Schedule(time.Second, func(uint64) {}, 0)
	k.Run()
	// The slot of old is reused by the next event.
	fresh := k.Schedule(2*time.Second, func(uint64) { fired++ }, 0)
	require.Equal(t, old.slot, fresh.slot, "test assumes slot reuse")
	assert.False(t, k.Cancel(old))
	k.Run()
	assert.Equal(t, 1, fired)
}

func TestSchedulingInThePastPanics(t *testing.T) {
	k := New(1)
	k.Schedule(time.Second, func(uint64) {}, 0)
	k.Run()
	assert.PanicsWithValue(t, "sim: event scheduled at 999ms, before now 1s", func() {
		k.Schedule(999*time.Millisecond, func(uint64) {}, 0)
	})
	assert.Panics(t, func() { k.After(-1, func(uint64) {}, 0) })
	assert.Panics(t, func() { k.Schedule(2*time.Second, nil, 0) })
}

func TestRunUntilFiresDueEventsAndAdvancesTime(t *testing.T) {
	k := New(1)
	var got []time.Duration
	f := func(uint64) { got = append(got, k.Now()) }
	k.Schedule(time.Second, f, 0)
	k.Schedule(2*time.Second, f, 0)
	k.Schedule(3*time.Second, f, 0)
	k.RunUntil(2 * time.Second)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, got)
	assert.Equal(t, 2*time.Second, k.Now())
	assert.Equal(t, 1, k.Pending())
	k.RunUntil(2500 * time.Millisecond)
	assert.Equal(t, 2500*time.Millisecond, k.Now(), "time advances to the limit even without events")
	assert.Panics(t, func() { k.RunUntil(time.Second) })
}

func TestStop(t *testing.T) {
	k := New(1)
	n := 0
	var tick Func
	tick = func(uint64) {
		n++
		if n == 3 {
			k.Stop()
		}
		k.After(time.Second, tick, 0)
	}
	k.After(time.Second, tick, 0)
	k.RunUntil(time.Hour)
	assert.Equal(t, 3, n)
	assert.Equal(t, 3*time.Second, k.Now(), "a stopped RunUntil leaves time at the last event")
}

func TestStreamsAreStableAndIndependent(t *testing.T) {
	draw := func(seed uint64, name string) []uint64 {
		r := NewStream(seed, name)
		out := make([]uint64, 4)
		for i := range out {
			out[i] = r.Uint64()
		}
		return out
	}
	assert.Equal(t, draw(42, "client:c1"), draw(42, "client:c1"))
	assert.NotEqual(t, draw(42, "client:c1"), draw(42, "client:c2"))
	assert.NotEqual(t, draw(42, "client:c1"), draw(43, "client:c1"))
	// Pinned: the derivation is part of the reproducibility contract. If this
	// changes, every recorded seed in every published result replays
	// differently.
	a, b := StreamSeed(42, "client:c1")
	assert.Equal(t, "0xe861983608960790 0x7f58752333a87294", fmt.Sprintf("%#x %#x", a, b))
	// And the name hash is exactly the standard FNV-1a.
	h := fnv.New64a()
	h.Write([]byte("client:c1"))
	s := 42 ^ h.Sum64()
	assert.Equal(t, splitmix64(&s), a)

	// Taking a second stream must not disturb the first.
	k1 := New(9)
	r1 := k1.Rand("a")
	x1 := r1.Uint64()
	k2 := New(9)
	_ = k2.Rand("b")
	r2 := k2.Rand("a")
	assert.Equal(t, x1, r2.Uint64())
}

func TestStreamNameTakenTwicePanics(t *testing.T) {
	k := New(1)
	k.Rand("x")
	assert.PanicsWithValue(t, `sim: random stream "x" taken twice`, func() { k.Rand("x") })
}

// A claimed prefix's streams draw as the same names taken with Stream
// (the seeds come from the names alone), and no one else may take a name
// under it, before or after the claim.
func TestClaimedStreamsDrawAsStreamsAndKeepTheirPrefix(t *testing.T) {
	k1 := New(7)
	k1.ClaimPrefix("net:")
	claimed := k1.ClaimedStream("net:a->b")
	plain := New(7).Stream("net:a->b")
	assert.Equal(t, plain.Uint64(), claimed.Uint64())

	assert.PanicsWithValue(t, `sim: random stream "net:c->d" is under the prefix "net:", claimed by another component`,
		func() { k1.Stream("net:c->d") })
	assert.PanicsWithValue(t, `sim: stream "actor:a" is not under a claimed prefix`, func() { k1.ClaimedStream("actor:a") })
	assert.Panics(t, func() { k1.ClaimPrefix("other:") }, "one claim per kernel")
	k2 := New(7)
	k2.Stream("net:a->b")
	assert.PanicsWithValue(t, `sim: prefix "net:" claimed after stream "net:a->b" was taken`, func() { k2.ClaimPrefix("net:") })
}

// TestAFiringEventIsNoLongerPending: while its callback runs, an event's
// entry may still be the heap's root (Kernel.firing); it must not count,
// nor be found, nor be cancelled, nor fire again from a Step inside it.
func TestAFiringEventIsNoLongerPending(t *testing.T) {
	k := New(1)
	var self, other EventID
	var got []string
	self = k.Schedule(time.Second, func(uint64) {
		assert.Equal(t, 1, k.Pending())
		_, ok := k.Scheduled(self)
		assert.False(t, ok)
		assert.False(t, k.Cancel(self))
		require.True(t, k.Step(), "the other event")
		got = append(got, "self")
	}, 0)
	other = k.Schedule(2*time.Second, func(uint64) { got = append(got, "other") }, 0)
	k.Run()
	assert.Equal(t, []string{"other", "self"}, got)
	assert.False(t, k.Cancel(other))
	assert.Zero(t, k.Pending())
}
