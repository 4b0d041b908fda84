package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// queueings are the kernel's queue settings the tests run under: as
// shipped, switching between the heaps every few events, the 4-ary heap
// alone, and the calendar queue alone.
var queueings = []struct {
	name                     string
	calendarAbove, heapBelow int
}{{"default", calendarAbove, heapBelow}, {"switching", 8, 4}, {"heap", 1 << 30, 0}, {"calendar", 0, 0}}

// withQueueing runs f for each of the queueings.
func withQueueing(t *testing.T, f func(t *testing.T)) {
	for _, q := range queueings {
		t.Run(q.name, func(t *testing.T) {
			a, b := calendarAbove, heapBelow
			calendarAbove, heapBelow = q.calendarAbove, q.heapBelow
			defer func() { calendarAbove, heapBelow = a, b }()
			f(t)
		})
	}
}

// TestQueueAgainstReferenceWhileRunning drives the kernel the way a world
// does: callbacks schedule new events at and after now (many at equal
// times), cancel pending ones (enough for the queue to drop its cancelled
// entries), and the run advances in RunUntil steps that stop short of
// events. The firing order must be a stable sort by time of what was
// scheduled and not cancelled: time first, then scheduling order.
func TestQueueAgainstReferenceWhileRunning(t *testing.T) {
	withQueueing(t, func(t *testing.T) { queueAgainstReference(t, 40, 200, 3000) })
}

// TestLongQueueAgainstReference: the same with queues of thousands of
// events, which the calendar queue holds in more buckets and far ahead.
func TestLongQueueAgainstReference(t *testing.T) {
	withQueueing(t, func(t *testing.T) { queueAgainstReference(t, 3, 5000, 40000) })
}

// queueAgainstReference runs seeds runs that start with initial events
// and schedule until most have been scheduled.
func queueAgainstReference(t *testing.T, seeds uint64, initial, most int) {
	for seed := uint64(0); seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		k := New(seed)
		type ref struct {
			at        time.Duration
			seq       int
			cancelled bool
		}
		var sched []*ref
		var ids []EventID
		var fired []int
		var fn Func
		schedule := func() {
			var d time.Duration
			switch r.IntN(4) {
			case 0: // ties at now
			case 1:
				d = time.Duration(r.IntN(8))
			case 2:
				d = time.Duration(r.Int64N(1 << 20))
			default:
				d = time.Duration(r.Int64N(1 << 40))
			}
			sched = append(sched, &ref{at: k.Now() + d, seq: len(sched)})
			ids = append(ids, k.Schedule(k.Now()+d, fn, uint64(len(sched)-1)))
		}
		fn = func(arg uint64) {
			require.Equal(t, sched[arg].at, k.Now())
			fired = append(fired, int(arg))
			if len(sched) < most {
				for range r.IntN(3) {
					schedule()
				}
			}
			for range r.IntN(3) {
				i := r.IntN(len(ids))
				if at, ok := k.Scheduled(ids[i]); ok {
					require.Equal(t, sched[i].at, at)
					require.True(t, k.Cancel(ids[i]))
					sched[i].cancelled = true
				}
				require.False(t, k.Cancel(ids[i]), "a second cancel")
			}
		}
		for range initial {
			schedule()
		}
		for k.Pending() > 0 {
			k.RunUntil(k.Now() + time.Duration(r.Int64N(1<<30)))
		}
		want := slices.Clone(sched)
		want = slices.DeleteFunc(want, func(x *ref) bool { return x.cancelled })
		slices.SortStableFunc(want, func(a, b *ref) int { return int(a.at - b.at) })
		require.Len(t, fired, len(want), "seed %d", seed)
		for i, w := range want {
			require.Equal(t, w.seq, fired[i], "seed %d, event %d", seed, i)
		}
		require.Zero(t, k.Pending())
	}
}

// TestCancelledEntriesDoNotAccumulate: a world that sets a far timer and
// cancels it over and over keeps a queue the size of its live events.
func TestCancelledEntriesDoNotAccumulate(t *testing.T) {
	withQueueing(t, func(t *testing.T) {
		k := New(1)
		noop := func(uint64) {}
		for i := range 100000 {
			id := k.Schedule(time.Hour+time.Duration(i), noop, 0)
			require.True(t, k.Cancel(id))
		}
		require.Zero(t, k.Pending())
		require.LessOrEqual(t, k.dead, 65, "cancelled entries left in the queue")
		require.LessOrEqual(t, len(k.calls), 66, "slots held by cancelled entries")
	})
}

// TestSchedulingAfterARunThatStoppedShort: RunUntil peeks at an event
// past its limit without taking it, so an event scheduled between the
// limit and that event still fires first.
func TestSchedulingAfterARunThatStoppedShort(t *testing.T) {
	withQueueing(t, schedulingAfterARunThatStoppedShort)
}

func schedulingAfterARunThatStoppedShort(t *testing.T) {
	k := New(1)
	var got []time.Duration
	f := func(uint64) { got = append(got, k.Now()) }
	k.Schedule(1000, f, 0)
	k.Schedule(1<<20, f, 0)
	k.RunUntil(5000)
	k.Schedule(5001, f, 0)
	k.Schedule(5000, f, 0)
	k.Run()
	require.Equal(t, []time.Duration{1000, 5000, 5001, 1 << 20}, got)
}
