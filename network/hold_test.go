package network

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/sim"
)

// In hold mode, messages in flight when the cut comes and messages sent
// over the cut link arrive after the heal, in send order, each at the heal
// plus the latency it drew; a message sent after the heal does not overtake
// them, and the reverse direction's held message arrives too.
func TestHoldDeliversAfterHealInOrder(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	a, b := es[0], es[1]
	h.n.SetPartitionMode(PartitionHold, DefaultRetransmitLimit)
	h.n.SetDefaultLatency(Constant(2 * ms))
	h.n.SetLatency(a, b, Constant(4*ms))
	h.at(1*ms, func() { h.n.Send(a, b, 1) })         // in flight when the cut comes
	h.at(2*ms, func() { h.n.Apply(Isolate(es, a)) }) //
	h.at(3*ms, func() { h.n.Send(a, b, 2) })         // sent over the cut link
	h.at(4*ms, func() { h.n.Send(b, a, 3) })         // the other way
	h.at(9*ms, func() { h.n.Send(a, b, 4) })         //
	h.at(10*ms, h.n.Heal)                            //
	h.at(10*ms+ms/2, func() { h.n.Send(a, b, 5) })   // after the heal, same link
	h.at(20*ms, func() { h.n.Send(a, b, 6) })        // long after: normal
	h.k.RunUntil(time.Second)
	want := []string{
		"12ms b->a #3",
		"14ms a->b #1",
		"14ms a->b #2",
		"14ms a->b #4",
		"14.5ms a->b #5",
		"24ms a->b #6",
	}
	h.checkDeliveries(t, want)
	checkStats(t, h.n.Stats(), Stats{Sent: 6, Delivered: 6})
}

// A message sent after the heal whose own latency is shorter than a held
// one's still waits for it: the link is FIFO across the heal.
func TestHoldKeepsFIFOAcrossHeal(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	a, b := es[0], es[1]
	h.n.SetPartitionMode(PartitionHold, DefaultRetransmitLimit)
	h.n.SetDefaultLatency(Uniform(1*ms, 9*ms))
	h.at(0, func() { h.n.Apply(Cut([]Endpoint{a}, []Endpoint{b})) })
	for i := range 10 {
		h.at(time.Duration(i)*ms, func() { h.n.Send(a, b, i) })
	}
	h.at(10*ms, h.n.Heal)
	for i := 10; i < 40; i++ {
		h.at(10*ms+time.Duration(i-10)*ms/4, func() { h.n.Send(a, b, i) })
	}
	h.k.RunUntil(time.Second)
	want := make([]int, 40)
	for i := range want {
		want[i] = i
	}
	if got := h.msgs(); !slices.Equal(got, want) {
		t.Errorf("delivered %v, want send order", got)
	}
	for _, d := range h.got {
		if d.At < 11*ms {
			t.Errorf("%v arrived before the heal plus the least latency", d)
		}
	}
}

// A cut that comes back while held messages are being redelivered holds
// the rest again, and the next heal delivers them.
func TestHoldRecutDuringRedelivery(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	a, b := es[0], es[1]
	h.n.SetPartitionMode(PartitionHold, DefaultRetransmitLimit)
	h.n.SetLatency(a, b, Constant(5*ms))
	h.at(0, func() { h.n.Apply(Cut([]Endpoint{a}, []Endpoint{b})) })
	h.at(1*ms, func() { h.n.Send(a, b, 1) })
	h.at(2*ms, func() { h.n.SetLatency(a, b, Constant(20*ms)) })
	h.at(3*ms, func() { h.n.Send(a, b, 2) })
	h.at(10*ms, h.n.Heal)                                                // #1 at 15ms, #2 at 30ms
	h.at(20*ms, func() { h.n.Apply(Cut([]Endpoint{a}, []Endpoint{b})) }) // holds #2 again
	h.at(40*ms, h.n.Heal)                                                // #2 at 60ms
	h.k.RunUntil(time.Second)
	want := []string{"15ms a->b #1", "60ms a->b #2"}
	h.checkDeliveries(t, want)
}

// A message held for longer than the retransmission limit (counted from its
// send) is dropped when it would be redelivered, as TCP resets the connection; one sent
// within the limit still arrives.
func TestHoldRetransmitLimitDrops(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	a, b := es[0], es[1]
	h.n.SetPartitionMode(PartitionHold, 100*ms)
	h.n.SetDefaultLatency(Constant(1 * ms))
	rec := sim.NewRecorder()
	h.k.SetTrace(rec)
	h.at(0, func() { h.n.Apply(Isolate(es, a)) })
	h.at(10*ms, func() { h.n.Send(a, b, 1) }) // held 110ms at the heal: dropped
	h.at(50*ms, func() { h.n.Send(a, b, 2) }) // held 70ms: delivered
	h.at(120*ms, h.n.Heal)
	h.k.RunUntil(time.Second)
	h.checkDeliveries(t, []string{"121ms a->b #2"})
	checkStats(t, h.n.Stats(), Stats{Sent: 2, Delivered: 1, DroppedPartition: 1})
	var tr strings.Builder
	rec.WriteTo(&tr)
	if !strings.Contains(tr.String(), "0.121000000s net drop from=a to=b reason=retransmit-limit sent=0.010000000s") {
		t.Errorf("no retransmit-limit drop at the heal in the trace:\n%s", tr.String())
	}
}

// A held message is dropped when its receiver or its sender restarted
// during the partition: a new incarnation has new connections.
func TestHoldIncarnationDrops(t *testing.T) {
	h, es := newHarness(1, "a", "b", "c")
	a, b, c := es[0], es[1], es[2]
	h.n.SetPartitionMode(PartitionHold, DefaultRetransmitLimit)
	h.n.SetDefaultLatency(Constant(1 * ms))
	h.at(0, func() { h.n.Apply(Isolate(es, a)) })
	h.at(1*ms, func() { h.n.Send(a, b, 1) }) // b restarts: dropped
	h.at(2*ms, func() { h.n.Send(b, a, 2) }) // its sender b restarts: dropped
	h.at(3*ms, func() { h.n.Send(a, c, 3) }) // nobody restarts: delivered
	h.at(5*ms, func() { h.n.SetUp(b, false) })
	h.at(6*ms, func() { h.n.SetUp(b, true) })
	h.at(10*ms, h.n.Heal)
	h.k.RunUntil(time.Second)
	h.checkDeliveries(t, []string{"11ms a->c #3"})
	checkStats(t, h.n.Stats(), Stats{Sent: 3, Delivered: 1, DroppedDown: 2})
}

// Hold is the default (every link the model has is a TCP connection), and
// the same run in drop mode drops what hold mode delivers.
func TestHoldModeIsDefaultAndDropDrops(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	if h.n.PartitionMode() != PartitionHold {
		t.Fatalf("default mode %v, want hold", h.n.PartitionMode())
	}
	h.n.SetPartitionMode(PartitionDrop, DefaultRetransmitLimit)
	h.n.SetDefaultLatency(Constant(2 * ms))
	h.at(1*ms, func() { h.n.Send(es[0], es[1], 1) })
	h.at(2*ms, func() { h.n.Apply(Isolate(es, es[0])) })
	h.at(3*ms, func() { h.n.Send(es[0], es[1], 2) })
	h.at(10*ms, h.n.Heal)
	h.k.RunUntil(time.Second)
	if len(h.got) != 0 {
		t.Errorf("drop mode delivered %v", h.lines())
	}
	checkStats(t, h.n.Stats(), Stats{Sent: 2, DroppedPartition: 2})
}

func TestParsePartitionMode(t *testing.T) {
	for _, m := range []PartitionMode{PartitionDrop, PartitionHold} {
		got, err := ParsePartitionMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParsePartitionMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParsePartitionMode("keep"); err == nil {
		t.Error("ParsePartitionMode(keep) did not fail")
	}
}

// Two hold-mode runs with random latencies deliver identically.
func TestHoldDeterministic(t *testing.T) {
	run := func() []string {
		h, es := newHarness(7, "a", "b", "c")
		h.n.SetPartitionMode(PartitionHold, DefaultRetransmitLimit)
		h.n.SetDefaultLatency(Exponential(ms))
		for i := range 200 {
			h.at(time.Duration(i)*ms/3, func() { h.n.Send(es[i%3], es[(i+1)%3], i) })
		}
		h.at(10*ms, func() { h.n.Apply(Isolate(es, es[1])) })
		h.at(40*ms, h.n.Heal)
		h.k.RunUntil(time.Second)
		return h.lines()
	}
	first, second := run(), run()
	if !slices.Equal(first, second) || len(first) != 200 {
		t.Errorf("runs differ or lost messages: %d and %d deliveries", len(first), len(second))
	}
}

// BenchmarkHeldDelivery measures one message held on a cut link and
// redelivered after the heal: a Send, the delivery event that holds it, and
// the redelivery event, per held message, with `held` messages per cut.
func BenchmarkHeldDelivery(b *testing.B) {
	for _, held := range []int{1, 64} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			r := newBenchRig()
			k, n, x, y := r.k, r.n, r.x, r.y
			n.SetPartitionMode(PartitionHold, DefaultRetransmitLimit)
			cut := Cut([]Endpoint{x}, []Endpoint{y})
			round := func(i int) {
				n.Apply(cut)
				for j := range held {
					n.Send(x, y, benchMsg{uint64(i), uint64(j)})
				}
				for k.Step() { // every message reaches the cut and is held
				}
				n.Heal()
				for k.Step() {
				}
			}
			round(0) // grow the tables to their peak
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				round(i)
			}
			if r.delivered != int(n.Stats().Sent) {
				b.Fatalf("delivered %d of %d", r.delivered, n.Stats().Sent)
			}
		})
	}
}
