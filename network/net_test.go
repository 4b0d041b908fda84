package network

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/sim"
)

// delivery is one observed arrival.
type delivery struct {
	At       time.Duration
	From, To string
	Msg      int
}

func (d delivery) String() string {
	return fmt.Sprintf("%v %s->%s #%d", d.At, d.From, d.To, d.Msg)
}

// harness is a network of int messages that records every delivery.
type harness struct {
	k   *sim.Kernel
	n   *Net[int]
	got []delivery
}

func newHarness(seed uint64, names ...string) (*harness, []Endpoint) {
	h := &harness{k: sim.New(seed)}
	h.n = New(h.k, func(from, to Endpoint, m int) {
		h.got = append(h.got, delivery{h.k.Now(), h.n.Name(from), h.n.Name(to), m})
	})
	var es []Endpoint
	for _, name := range names {
		es = append(es, h.n.AddEndpoint(name))
	}
	return h, es
}

// at runs fn at true time t.
func (h *harness) at(t time.Duration, fn func()) {
	h.k.Schedule(t, func(uint64) { fn() }, 0)
}

func (h *harness) msgs() []int {
	var ms []int
	for _, d := range h.got {
		ms = append(ms, d.Msg)
	}
	return ms
}

func (h *harness) lines() []string {
	var ls []string
	for _, d := range h.got {
		ls = append(ls, d.String())
	}
	return ls
}

// checkDeliveries fails t unless h delivered exactly want, in order.
func (h *harness) checkDeliveries(t *testing.T, want []string) {
	t.Helper()
	if got := h.lines(); !slices.Equal(got, want) {
		t.Errorf("deliveries\ngot  %q\nwant %q", got, want)
	}
}

func checkStats(t *testing.T, got, want Stats) {
	t.Helper()
	if got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
}

func TestFIFOWhenALaterMessageIsFaster(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	a, b := es[0], es[1]
	h.n.SetLatency(a, b, Constant(50*ms))
	h.n.Send(a, b, 1)
	h.n.SetLatency(a, b, Constant(ms))
	h.n.Send(a, b, 2)
	h.n.Send(b, a, 3) // the other direction is its own connection
	h.k.Run()
	want := []string{"0s b->a #3", "50ms a->b #1", "50ms a->b #2"}
	h.checkDeliveries(t, want)
}

// TestFIFOUnderRandomLatency replays the link's documented stream to predict
// every delivery time exactly, and checks that the FIFO floor was needed.
func TestFIFOUnderRandomLatency(t *testing.T) {
	const seed, count = 7, 300
	lat := Uniform(ms, 100*ms)
	h, es := newHarness(seed, "a", "b")
	h.n.SetDefaultLatency(lat)
	for i := range count {
		h.at(time.Duration(i)*ms, func() { h.n.Send(es[0], es[1], i) })
	}
	h.k.Run()

	r := sim.NewStream(seed, "net:a->b")
	var last time.Duration
	held := 0
	for i := range count {
		sent := time.Duration(i) * ms
		at := sent + lat.Sample(r)
		if at < last {
			held++
			at = last
		}
		last = at
		if i >= len(h.got) || h.got[i].Msg != i || h.got[i].At != at {
			t.Fatalf("delivery %d = %v, want #%d at %v", i, h.got[i], i, at)
		}
	}
	if held < count/4 {
		t.Errorf("only %d of %d messages were held back by FIFO; the test is not exercising it", held, count)
	}
}

func TestInterleavingAcrossLinks(t *testing.T) {
	h, es := newHarness(1, "a", "b", "c")
	a, b, c := es[0], es[1], es[2]
	h.n.SetDefaultLatency(Constant(5 * ms))
	h.n.SetLatency(a, c, Constant(3*ms))
	h.n.Send(a, b, 1)
	h.n.Send(c, b, 2)
	h.n.Send(a, c, 3)
	h.n.Send(b, a, 4)
	h.n.Send(a, b, 5)
	h.k.Run()
	want := []string{"3ms a->c #3", "5ms a->b #1", "5ms c->b #2", "5ms b->a #4", "5ms a->b #5"}
	h.checkDeliveries(t, want)
}

func TestLossRate(t *testing.T) {
	const count = 20_000
	h, es := newHarness(3, "a", "b", "c")
	h.n.SetDefaultLoss(0.1)
	h.n.SetLoss(es[0], es[2], 1)
	h.n.SetLoss(es[2], es[0], 0)
	for i := range count {
		h.n.Send(es[0], es[1], i)
		h.n.Send(es[0], es[2], -1)
		h.n.Send(es[2], es[0], -2)
	}
	h.k.Run()
	s := h.n.Stats()
	// a->b loses about 10% (sd about 42 messages), a->c all, c->a none.
	lostAB := s.DroppedLoss - count
	if lostAB < 1800 || lostAB > 2200 {
		t.Errorf("a->b lost %d of %d at p=0.1, want 1800..2200", lostAB, count)
	}
	checkStats(t, s, Stats{Sent: 3 * count, Delivered: 2*count - lostAB, DroppedLoss: count + lostAB})
}

// TestLossIsMonotoneInProbability pins the coupling promised by Send: the
// same seed at a higher loss probability loses a superset of messages, and
// the survivors arrive at the same times.
func TestLossIsMonotoneInProbability(t *testing.T) {
	run := func(p float64) *harness {
		h, es := newHarness(5, "a", "b")
		h.n.SetDefaultLatency(Exponential(10 * ms))
		h.n.SetDefaultLoss(p)
		for i := range 2000 {
			h.at(time.Duration(i)*ms, func() { h.n.Send(es[0], es[1], i) })
		}
		h.k.Run()
		return h
	}
	lo, hi := run(0.05), run(0.2)
	if len(hi.got) >= len(lo.got) {
		t.Fatalf("p=0.2 delivered %d, p=0.05 delivered %d; want fewer at the higher p", len(hi.got), len(lo.got))
	}
	var time05 = make(map[int]time.Duration)
	for _, d := range lo.got {
		time05[d.Msg] = d.At
	}
	for _, d := range hi.got {
		at, ok := time05[d.Msg]
		if !ok {
			t.Fatalf("#%d survived p=0.2 but was lost at p=0.05", d.Msg)
		}
		// Times differ only through the FIFO floor from lost predecessors,
		// and a lost message never sets the floor, so the higher p can only
		// deliver earlier or at the same time.
		if d.At > at {
			t.Errorf("#%d arrives at %v with p=0.2, later than %v with p=0.05", d.Msg, d.At, at)
		}
	}
}

// TestDrawsIgnoreFate pins the other half of that promise: each Send
// consumes the same draws whether its message is lost, cut off, sent to a
// down endpoint, or sent while the loss probability is 0, so messages after
// a fault see the same latencies and losses as in a run without it.
func TestDrawsIgnoreFate(t *testing.T) { drawsIgnoreFate(t, false) }

// TestDrawsIgnoreFateAcrossABranch is TestDrawsIgnoreFate in a run whose
// streams are re-seeded at a branch point while the loss probability is
// 0: the draws of the messages sent before the branch belong to the old
// seed, so the network must not defer them past it (it defers them at
// probability 0 otherwise).
func TestDrawsIgnoreFateAcrossABranch(t *testing.T) { drawsIgnoreFate(t, true) }

func drawsIgnoreFate(t *testing.T, branch bool) {
	const count = 1000
	run := func(faults bool) map[int]time.Duration {
		h, es := newHarness(8, "a", "b")
		if branch {
			h.k.SetSampling(&sim.Sampling{Branch: true, BranchAt: 100*100*ms + ms/2, BranchSalt: 3})
		}
		h.n.SetPartitionMode(PartitionDrop, DefaultRetransmitLimit) // these cuts drop
		h.n.SetDefaultLatency(Exponential(ms))
		h.n.SetDefaultLoss(0.2)
		if faults {
			h.n.SetDefaultLoss(0)
			h.at(200*100*ms, func() { h.n.SetDefaultLoss(0.2) })
			h.at(300*100*ms, func() { h.n.Apply(Isolate(es, es[1])) })
			h.at(400*100*ms, h.n.Heal)
			h.at(500*100*ms, func() { h.n.SetUp(es[1], false) })
			h.at(600*100*ms, func() { h.n.SetUp(es[1], true) })
		}
		// Spaced 100 mean latencies apart, so the FIFO floor never binds.
		for i := range count {
			h.at(time.Duration(i)*100*ms, func() { h.n.Send(es[0], es[1], i) })
		}
		h.k.Run()
		got := make(map[int]time.Duration)
		for _, d := range h.got {
			got[d.Msg] = d.At
		}
		return got
	}
	base, faulty := run(false), run(true)
	compared := 0
	for i := 200; i < count; i++ {
		if i >= 300 && i < 400 || i >= 500 && i < 600 {
			continue
		}
		at, ok := base[i]
		fat, fok := faulty[i]
		if ok != fok || at != fat {
			t.Fatalf("#%d: without faults (%v, delivered %v), with faults (%v, delivered %v)", i, at, ok, fat, fok)
		}
		compared++
	}
	for i := range 200 {
		if _, ok := faulty[i]; !ok {
			t.Fatalf("#%d was lost at loss probability 0", i)
		}
	}
	if compared != 600 || len(base) > count-100 {
		t.Errorf("compared %d messages, baseline delivered %d of %d; the test is not exercising loss", compared, len(base), count)
	}
}

func TestSpikeDelaysOnlyMessagesSentInWindow(t *testing.T) {
	h, es := newHarness(1, "a", "b", "c")
	a, b, c := es[0], es[1], es[2]
	h.n.SetDefaultLatency(Constant(10 * ms))
	h.n.AddSpike(a, b, 100*ms, 200*ms, 50*ms)
	h.n.AddSpike(All, c, 150*ms, 160*ms, 5*ms)
	h.n.AddSpike(All, c, 155*ms, 160*ms, 1*ms) // overlapping spikes add up
	send := func(t time.Duration, from, to Endpoint, m int) { h.at(t, func() { h.n.Send(from, to, m) }) }
	send(99*ms, a, b, 1)  // before the window
	send(100*ms, a, b, 2) // start is inside
	send(150*ms, b, a, 3) // other direction: not spiked
	send(199*ms, a, b, 4)
	send(200*ms, a, b, 5) // end is outside, but FIFO holds it behind #4
	send(201*ms, a, b, 6)
	send(155*ms, b, c, 7)
	send(160*ms, a, c, 8)
	h.k.Run()
	want := []string{
		"109ms a->b #1",
		"160ms a->b #2",
		"160ms b->a #3", // sent later than #2, so after it at the same time
		"170ms a->c #8",
		"171ms b->c #7",
		"259ms a->b #4",
		"259ms a->b #5",
		"259ms a->b #6",
	}
	h.checkDeliveries(t, want)
}

func TestDownEndpoints(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	a, b := es[0], es[1]
	h.n.SetDefaultLatency(Constant(10 * ms))
	send := func(t time.Duration, from, to Endpoint, m int) { h.at(t, func() { h.n.Send(from, to, m) }) }
	set := func(t time.Duration, e Endpoint, up bool) { h.at(t, func() { h.n.SetUp(e, up) }) }

	send(0, a, b, 1) // b crashes and restarts while #1 is in flight: dropped
	set(2*ms, b, false)
	send(3*ms, a, b, 2) // sent to a down endpoint: dropped
	set(5*ms, b, true)
	send(6*ms, a, b, 3)  // sent to the new incarnation: delivered
	send(20*ms, b, a, 4) // delivered
	send(30*ms, a, b, 5) // a crashes right after sending: #5 is still delivered
	set(31*ms, a, false)
	send(32*ms, a, b, 6) // a down endpoint cannot send
	send(33*ms, b, a, 7) // nor receive
	send(40*ms, b, a, 8) // arrives at 50ms, a still down: dropped
	set(60*ms, a, true)
	send(61*ms, b, a, 9) // delivered
	h.k.Run()
	want := []string{"16ms a->b #3", "30ms b->a #4", "40ms a->b #5", "71ms b->a #9"}
	h.checkDeliveries(t, want)
	checkStats(t, h.n.Stats(), Stats{Sent: 9, Delivered: 4, DroppedDown: 5})
	if !h.n.Up(a) || !h.n.Up(b) {
		t.Errorf("Up(a)=%v Up(b)=%v, want both up", h.n.Up(a), h.n.Up(b))
	}
}

func TestSetUpTwiceKeepsIncarnation(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	h.n.SetDefaultLatency(Constant(10 * ms))
	h.n.Send(es[0], es[1], 1)
	h.n.SetUp(es[1], true) // already up: not a restart
	h.k.Run()
	if got := h.msgs(); !slices.Equal(got, []int{1}) {
		t.Errorf("delivered %v, want [1]", got)
	}
}

func TestPartitionAtSendOrDeliveryDrops(t *testing.T) {
	h, es := newHarness(1, "a", "b", "c")
	a, b, c := es[0], es[1], es[2]
	h.n.SetPartitionMode(PartitionDrop, DefaultRetransmitLimit) // these cuts drop
	h.n.SetDefaultLatency(Constant(10 * ms))
	send := func(t time.Duration, from, to Endpoint, m int) { h.at(t, func() { h.n.Send(from, to, m) }) }

	send(0, a, b, 1) // in flight when the partition starts: dropped
	send(0, a, c, 2) // c stays with a: delivered
	h.at(5*ms, func() { h.n.Apply(Isolate(es, b)) })
	send(6*ms, b, a, 3)  // across the cut at send: dropped
	send(7*ms, a, c, 4)  //
	send(20*ms, c, b, 5) // in flight across the heal: the link is cut only at send
	h.at(25*ms, h.n.Heal)
	send(26*ms, b, a, 6) // healed
	send(40*ms, a, b, 7) // the partition comes and goes while #7 is in flight
	h.at(42*ms, func() { h.n.Apply(Cut(es[:1], es[1:2])) })
	h.at(45*ms, h.n.Heal)
	h.k.Run()
	want := []string{"10ms a->c #2", "17ms a->c #4", "36ms b->a #6", "50ms a->b #7"}
	h.checkDeliveries(t, want)
	checkStats(t, h.n.Stats(), Stats{Sent: 7, Delivered: 4, DroppedPartition: 3})
}

func TestTraceRecordsDropsAndPartitions(t *testing.T) {
	h, es := newHarness(1, "n1", "n2", "n3")
	h.n.SetPartitionMode(PartitionDrop, DefaultRetransmitLimit) // these cuts drop
	rec := sim.NewRecorder()
	h.k.SetTrace(rec)
	h.n.SetDefaultLatency(Constant(10 * ms))
	h.n.SetLoss(es[2], es[0], 1)
	h.n.Send(es[0], es[1], 1)
	h.n.Send(es[2], es[0], 2)
	h.at(ms, func() { h.n.Apply(MajorityMinority(es)) })
	h.at(2*ms, func() { h.n.SetUp(es[1], false) })
	h.at(3*ms, func() { h.n.Send(es[0], es[2], 3) })
	h.at(4*ms, h.n.Heal)
	h.k.Run()
	var b strings.Builder
	rec.WriteTo(&b)
	want := `0.000000000s net drop from=n3 to=n1 reason=loss sent=0.000000000s
0.001000000s net partition cuts="n1<-n3 n2<-n3 n3<-n1,n2"
0.003000000s net drop from=n1 to=n3 reason=partition sent=0.003000000s
0.004000000s net heal
0.010000000s net drop from=n1 to=n2 reason=down sent=0.000000000s
`
	if got := b.String(); got != want {
		t.Errorf("trace\ngot\n%s\nwant\n%s", got, want)
	}
}

// TestQuietWhenNotTracing guards the promise that nothing is recorded or
// built when tracing is off.
func TestQuietWhenNotTracing(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	h.n.SetDefaultLoss(1)
	h.n.Apply(Isolate(es, es[0]))
	allocs := testing.AllocsPerRun(100, func() { h.n.Send(es[1], es[0], 0) })
	if allocs != 0 {
		t.Errorf("dropping with tracing off allocates %v times, want 0", allocs)
	}
}

// workload sends random traffic among four endpoints for a second of virtual
// time, with jitter, loss and a partition, and returns what arrived.
func workload(seed uint64) []string {
	h, es := newHarness(seed, "c1", "n1", "n2", "n3")
	h.n.SetDefaultLatency(Lognormal(2*ms, 0.7))
	h.n.SetLatency(es[0], es[1], Uniform(0, 20*ms))
	h.n.SetDefaultLoss(0.05)
	r := h.k.Rand("test:workload")
	var tick sim.Func
	msg := 0
	tick = func(uint64) {
		from, to := es[r.IntN(4)], es[r.IntN(4)]
		msg++
		h.n.Send(from, to, msg)
		if h.k.Now() < time.Second {
			h.k.After(time.Duration(r.Int64N(int64(ms))), tick, 0)
		}
	}
	h.k.Schedule(0, tick, 0)
	h.at(300*ms, func() { h.n.Apply(Isolate(es, es[2])) })
	h.at(600*ms, h.n.Heal)
	h.k.Run()
	return h.lines()
}

func TestSameSeedSameDeliveries(t *testing.T) {
	a, b, c := workload(11), workload(11), workload(12)
	if len(a) < 1000 {
		t.Fatalf("workload delivered only %d messages", len(a))
	}
	if !slices.Equal(a, b) {
		t.Errorf("two runs with seed 11 differ")
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 11 and 12 gave the same deliveries")
	}
}

// TestLinksDrawIndependently checks that adding an endpoint, and traffic on
// another link, leaves a link's delivery times unchanged.
func TestLinksDrawIndependently(t *testing.T) {
	run := func(names ...string) []string {
		h, _ := newHarness(9, names...)
		h.n.SetDefaultLatency(Exponential(5 * ms))
		a, _ := h.n.Lookup("a")
		b, _ := h.n.Lookup("b")
		x, hasX := h.n.Lookup("x")
		for i := range 100 {
			if hasX {
				h.n.Send(a, x, -i)
				h.n.Send(x, b, -i)
			}
			h.n.Send(a, b, i)
		}
		h.k.Run()
		var ab []string
		for _, d := range h.got {
			if d.From == "a" && d.To == "b" {
				ab = append(ab, d.String())
			}
		}
		return ab
	}
	plain, extra := run("a", "b"), run("x", "a", "b")
	if len(plain) != 100 || !slices.Equal(plain, extra) {
		t.Errorf("a->b deliveries changed when endpoint x joined\nwithout %q\nwith    %q", plain[:3], extra[:3])
	}
}

func TestSteadyStateDoesNotAllocate(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	h.n.SetDefaultLatency(Uniform(ms, 5*ms))
	for i := range 64 { // warm up: open streams, grow the slabs
		h.n.Send(es[0], es[1], i)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		h.n.Send(es[0], es[1], 1)
		h.k.Step()
	})
	if allocs != 0 {
		t.Errorf("send+deliver allocates %v times per message, want 0", allocs)
	}
}

func TestEndpoints(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	if got := h.n.Endpoints(); !slices.Equal(got, es) {
		t.Errorf("Endpoints() = %v, want %v", got, es)
	}
	if e, ok := h.n.Lookup("b"); !ok || e != es[1] || h.n.Name(e) != "b" {
		t.Errorf("Lookup(b) = %v, %v", e, ok)
	}
	if _, ok := h.n.Lookup("z"); ok {
		t.Errorf("Lookup(z) found an endpoint")
	}
	for _, bad := range []string{"", "a", "x y", "a,b", "a->b", "p|q"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AddEndpoint(%q) did not panic", bad)
				}
			}()
			h.n.AddEndpoint(bad)
		}()
	}
}

// BenchmarkSendDeliver measures one Send and one delivery through the
// kernel, with a standing queue of in-flight messages (inflight=1 is mostly
// this package's cost; at 512 the kernel's heap dominates).
func BenchmarkSendDeliver(b *testing.B) {
	for _, inflight := range []int{1, 512} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) {
			r := newBenchRig()
			k, n := r.k, r.n
			n.SetDefaultLoss(0.0001)
			for i := range inflight - 1 {
				n.Send(Endpoint(i%2), Endpoint(1-i%2), benchMsg{uint64(i), 0})
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				n.Send(r.x, r.y, benchMsg{uint64(i), 0})
				k.Step()
			}
		})
	}
}

// benchMsg is the benchmarks' message: two words, the size of a small
// real one.
type benchMsg struct{ a, b uint64 }

// benchRig is the benchmarks' network: endpoints x and y on a kernel of
// its own, exponential 1 ms latency, and a handler that counts deliveries.
type benchRig struct {
	k         *sim.Kernel
	n         *Net[benchMsg]
	x, y      Endpoint
	delivered int
}

func newBenchRig() *benchRig {
	r := &benchRig{k: sim.New(1)}
	r.n = New(r.k, func(from, to Endpoint, m benchMsg) { r.delivered++ })
	r.x, r.y = r.n.AddEndpoint("x"), r.n.AddEndpoint("y")
	r.n.SetDefaultLatency(Exponential(ms))
	return r
}

// The tap sees exactly the delivered messages, with their send times, and
// not the dropped ones.
func TestTapSeesDeliveries(t *testing.T) {
	h, es := newHarness(1, "a", "b")
	h.n.SetPartitionMode(PartitionDrop, DefaultRetransmitLimit) // these cuts drop
	h.n.SetDefaultLatency(Constant(2 * ms))
	type tapped struct {
		sent, at time.Duration
		m        int
	}
	var got []tapped
	h.n.SetTap(func(from, to Endpoint, sentAt time.Duration, m int) {
		got = append(got, tapped{sentAt, h.k.Now(), m})
	})
	h.at(1*ms, func() { h.n.Send(es[0], es[1], 1) })
	h.at(5*ms, func() { h.n.Apply(Isolate(es, es[0])) })
	h.at(6*ms, func() { h.n.Send(es[0], es[1], 2) }) // dropped
	h.at(7*ms, h.n.Heal)
	h.at(8*ms, func() { h.n.Send(es[1], es[0], 3) })
	h.k.RunUntil(time.Second)
	want := []tapped{{1 * ms, 3 * ms, 1}, {8 * ms, 10 * ms, 3}}
	if !slices.Equal(got, want) {
		t.Errorf("tap saw %v, want %v", got, want)
	}
	if !slices.Equal(h.msgs(), []int{1, 3}) {
		t.Errorf("delivered %v, want [1 3]", h.msgs())
	}
}

// The drop tap sees every message the network loses, whatever the reason,
// once, when it is lost, and never a delivered one: with the deliveries it
// accounts for every Send, in drop mode and in hold mode.
func TestDropTapSeesEveryDrop(t *testing.T) {
	type lost struct {
		at       time.Duration
		from, to string
		m        int
	}
	tapDrops := func(h *harness) *[]lost {
		var got []lost
		h.n.SetDropTap(func(from, to Endpoint, m int) {
			got = append(got, lost{h.k.Now(), h.n.Name(from), h.n.Name(to), m})
		})
		return &got
	}

	t.Run("drop mode", func(t *testing.T) {
		h, es := newHarness(1, "a", "b", "c")
		a, b, c := es[0], es[1], es[2]
		h.n.SetPartitionMode(PartitionDrop, DefaultRetransmitLimit)
		h.n.SetDefaultLatency(Constant(2 * ms))
		got := tapDrops(h)
		ab := Cut([]Endpoint{a}, []Endpoint{b})
		h.at(1*ms, func() { h.n.SetLoss(a, c, 1); h.n.Send(a, c, 1) }) // lost
		h.at(2*ms, func() { h.n.SetUp(b, false); h.n.Send(a, b, 2) })  // receiver down at send
		h.at(3*ms, func() { h.n.SetUp(b, true) })
		h.at(4*ms, func() { h.n.Apply(ab); h.n.Send(a, b, 3) }) // cut at send
		h.at(5*ms, h.n.Heal)
		h.at(6*ms, func() { h.n.Send(a, b, 4) }) // cut at delivery
		h.at(7*ms, func() { h.n.Apply(ab) })
		h.at(9*ms, h.n.Heal)
		h.at(10*ms, func() { h.n.Send(a, b, 5) }) // receiver restarted in flight
		h.at(11*ms, func() { h.n.SetUp(b, false) })
		h.at(11*ms+ms/2, func() { h.n.SetUp(b, true) })
		h.at(20*ms, func() { h.n.Send(a, b, 6) }) // delivered
		h.k.RunUntil(time.Second)
		want := []lost{{1 * ms, "a", "c", 1}, {2 * ms, "a", "b", 2}, {4 * ms, "a", "b", 3}, {8 * ms, "a", "b", 4}, {12 * ms, "a", "b", 5}}
		if !slices.Equal(*got, want) {
			t.Errorf("drop tap saw %v, want %v", *got, want)
		}
		if !slices.Equal(h.msgs(), []int{6}) {
			t.Errorf("delivered %v, want [6]", h.msgs())
		}
		checkStats(t, h.n.Stats(), Stats{Sent: 6, Delivered: 1, DroppedLoss: 1, DroppedPartition: 2, DroppedDown: 2})
	})

	t.Run("hold mode", func(t *testing.T) {
		h, es := newHarness(1, "a", "b")
		a, b := es[0], es[1]
		h.n.SetPartitionMode(PartitionHold, 50*ms)
		h.n.SetDefaultLatency(Constant(2 * ms))
		got := tapDrops(h)
		ab := Cut([]Endpoint{a}, []Endpoint{b})
		h.at(1*ms, func() { h.n.Apply(ab); h.n.Send(a, b, 1) }) // held; b restarts
		h.at(10*ms, func() { h.n.SetUp(b, false) })
		h.at(11*ms, func() { h.n.SetUp(b, true) })
		h.at(20*ms, h.n.Heal)
		h.at(30*ms, func() { h.n.Apply(ab); h.n.Send(a, b, 2) }) // held past the limit
		h.at(100*ms, h.n.Heal)
		h.at(200*ms, func() { h.n.Send(a, b, 3) }) // delivered
		h.k.RunUntil(time.Second)
		want := []lost{{22 * ms, "a", "b", 1}, {102 * ms, "a", "b", 2}}
		if !slices.Equal(*got, want) {
			t.Errorf("drop tap saw %v, want %v", *got, want)
		}
		if !slices.Equal(h.msgs(), []int{3}) {
			t.Errorf("delivered %v, want [3]", h.msgs())
		}
		checkStats(t, h.n.Stats(), Stats{Sent: 3, Delivered: 1, DroppedPartition: 1, DroppedDown: 1})
	})
}

// TestLinksHeldAreThoseUsed: a world of 1,000 nodes that each answer 2
// clients added after them held a full row of links for each node, 145 MB
// (LinkBytes of 1,002), and a refusal that had to build it went over
// 100 MB. The links are made 32 at a time, as they are first used, so the
// same sends hold a chunk a node: under 8 MB. A cut and a heal across
// chunks, and sends both ways, still find their links.
func TestLinksHeldAreThoseUsed(t *testing.T) {
	names := make([]string, 1002)
	for i := range 1000 {
		names[i] = fmt.Sprintf("n%d", i)
	}
	names[1000], names[1001] = "c1", "c2"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h, es := newHarness(1, names...)
	for _, n := range es[:1000] {
		for _, c := range es[1000:] {
			h.n.Send(c, n, 1)
			h.n.Send(n, c, 2)
		}
	}
	runtime.ReadMemStats(&after)
	if full := LinkBytes(len(names)); full < 140e6 {
		t.Fatalf("LinkBytes(1002) = %d, want the full table's 145 MB", full)
	}
	if held := after.TotalAlloc - before.TotalAlloc; held > 8<<20 {
		t.Errorf("1,000 nodes answering 2 clients allocated %d bytes, want under 8 MB", held)
	}
	h.n.Apply(Grudge{{From: es[5], To: es[1001]}, {From: es[1001], To: es[999]}})
	if h.n.Reachable(es[5], es[1001]) || h.n.Reachable(es[1001], es[999]) || !h.n.Reachable(es[6], es[1001]) {
		t.Fatal("the cut links are not the ones cut")
	}
	h.n.Heal()
	if !h.n.Reachable(es[5], es[1001]) || !h.n.Reachable(es[1001], es[999]) {
		t.Fatal("the heal left a link cut")
	}
	h.k.Run()
	if len(h.got) != 4000 {
		t.Errorf("%d deliveries, want 4000", len(h.got))
	}
}
