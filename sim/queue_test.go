package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/sim/bareheap"
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

// TestWarmQueueAgainstReference: the same past warmAbove pending events,
// where the kernel reads each front's callbacks ahead (Kernel.warm).
func TestWarmQueueAgainstReference(t *testing.T) {
	withQueueing(t, func(t *testing.T) { queueAgainstReference(t, 1, 2*warmAbove, 4*warmAbove) })
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

// TestCalendarAgainstBinaryHeap drives the calendar queue alone, without
// the kernel, against a plain binary heap on random schedules: pushes at
// the last time popped (ties), just after it, and far ahead; bursts that
// grow and drain the queue fourfold and more, so that it is rebuilt both
// ways; peeks that move the queue's tick ahead of a push still due
// before the peeked entry; cancellations, as the kernel makes them
// (entries skipped as they come out, and dropped in bulk by filter). The
// entries that come out, and their order, must be the heap's.
func TestCalendarAgainstBinaryHeap(t *testing.T) {
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 31))
		q := newQueue()
		var ref bareheap.Heap
		dead := map[uint64]bool{}
		var seq uint64
		alive := 0 // entries pushed, not popped and not cancelled
		now := time.Duration(0)
		delay := func() time.Duration {
			switch r.IntN(6) {
			case 0:
				return 0
			case 1:
				return time.Duration(r.IntN(4))
			case 2:
				return time.Duration(r.ExpFloat64() * float64(time.Millisecond))
			case 3:
				return time.Duration(r.Int64N(int64(2 * time.Millisecond)))
			case 4:
				return time.Duration(r.Int64N(int64(time.Second)))
			default:
				return time.Duration(r.Int64N(1 << 45))
			}
		}
		push := func(at time.Duration) {
			seq++
			slot := uint64(r.IntN(maxSlot + 1))
			q.push(heapEntry{at: at, key: seq<<slotBits | slot})
			ref.Push(bareheap.Entry{At: at, Seq: seq, Slot: int32(slot)})
			alive++
		}
		// next pops the reference's next live entry and checks that
		// the queue's is the same.
		next := func(step int) {
			for len(ref) > 0 && dead[ref[0].Seq] {
				ref.Pop()
			}
			want := ref.Pop()
			var got heapEntry
			for {
				got = q.pop()
				if !dead[got.key>>slotBits] {
					break
				}
			}
			require.Equal(t, want.At, got.at, "seed %d, step %d", seed, step)
			require.Equal(t, want.Seq, got.key>>slotBits, "seed %d, step %d", seed, step)
			require.Equal(t, want.Slot, got.slot(), "seed %d, step %d", seed, step)
			now = got.at
			alive--
		}
		// target is the queue length the schedule drifts towards; it
		// jumps now and then, so that the queue grows and drains.
		target := 10
		for step := range 60000 {
			if r.IntN(2000) == 0 {
				target = []int{0, 3, 50, 700, 5000}[r.IntN(5)]
			}
			switch {
			case alive < target || alive == 0:
				for range 1 + r.IntN(4) {
					push(now + delay())
				}
			case r.IntN(500) == 0:
				// A crowd at one instant and just after, more
				// than a bucket sorts by insertion.
				at := now + delay()
				for range 40 + r.IntN(200) {
					push(at + time.Duration(r.IntN(3)))
				}
			case r.IntN(40) == 0:
				// A RunUntil that stops short: peek, then push
				// between the last time popped and the peeked entry.
				e, ok := q.peek()
				require.True(t, ok)
				if e.at > now {
					push(now + time.Duration(r.Int64N(int64(e.at-now))))
				}
			case r.IntN(30) == 0 && len(ref) > 0:
				// Cancel some pending entries.
				for range 1 + r.IntN(8) {
					if s := ref[r.IntN(len(ref))].Seq; !dead[s] {
						dead[s] = true
						alive--
					}
				}
			case r.IntN(200) == 0:
				q.filter(func(e heapEntry) bool { return !dead[e.key>>slotBits] })
				require.Equal(t, alive, q.n, "seed %d, step %d: entries after filter", seed, step)
			default:
				next(step)
				if r.IntN(2) == 0 {
					push(now + delay())
				}
			}
		}
		for alive > 0 {
			next(-1)
		}
		for len(ref) > 0 && dead[ref[0].Seq] {
			ref.Pop()
		}
		require.Empty(t, ref)
	}
}
