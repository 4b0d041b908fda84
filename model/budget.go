package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
)

// DefaultMaxEvents is a run's event budget when a run is given none (0):
// about 25 s of one core, and, with the history budget that goes with it
// (HistoryBytesPerEvent each), a run that stays within about 1 GB of
// memory.
const DefaultMaxEvents = 50_000_000

// HistoryBytesPerEvent is the history a narrated run may keep per event of
// its budget. The library's scenarios keep 2 to 6 bytes of history per
// event, and their narration far more; a narrated run with one node keeps
// more per event, and is stopped by this budget before its history
// outgrows its share of the 1 GB. A fast run keeps no history (its
// check.Judge's memory does not grow with the run's length), so only its
// events count against its budget.
const HistoryBytesPerEvent = 8

// watchEvery is how often, at most, in events, a run compares itself with
// its budget: rarely enough to cost nothing, often enough to stop within a
// fraction of a second. A small budget is watched more often, 64 times
// over its length, and a run is held to its budget at its end as well.
const watchEvery = 1 << 16

// pilotShare is the part of the event budget after which a run estimates
// its whole cost from its rate so far, and stops at once if the estimate
// exceeds the budget: a 10000 h run is refused after a second, not after
// it has used up the machine.
const pilotShare = 50

// A run whose rate is not falling (the rate since the last mark at least
// the rate since its start, less steadyWithin of it, the marks doubling
// from pilotShare×markShare events) and whose estimate exceeds its budget
// earlyMargin times over is refused at that mark, before the pilot's
// end: a run that plainly cannot fit (a thousand clients for an hour)
// is refused after a tenth of the pilot's events. A rising rate counts as
// well as a steady one: a failover or a client that starts late makes the
// first seconds quieter than the rest, and a run 10000 hours long whose
// rate rose was refused only at the pilot's end, after 1M events (4-8 s,
// and 25 s narrated in the lab). Only a falling rate (clients finishing
// their iterations) waits for the pilot. Events and virtual time decide
// it, never the machine's clock, so it is as deterministic as the run.
const (
	markShare    = 16
	earlyMargin  = 1.5
	steadyWithin = 0.1
)

// BudgetError is a run that would exceed, or exceeded, its budget of events
// or of history. Its message gives the estimate, the scenario key that
// drives it, and how to raise the budget.
type BudgetError struct {
	Events, HistoryBytes       uint64        // estimated for the whole run
	MaxEvents, MaxHistoryBytes uint64        // the budget
	Measured                   time.Duration // the virtual time the rates were measured over
	Fired                      uint64        // events fired when the run stopped
	Running                    bool          // stopped at the budget (true), or refused on its estimate (false)
	Key, Value                 string        // the scenario key that drives the estimate, and its value
	Duration                   time.Duration
	// For a run refused before it ran, from the Config alone: each of
	// FloorClients clients asks FloorAsked nodes at least once per
	// FloorCycle (Measured is then 0, HistoryBytes unknown).
	FloorCycle               time.Duration
	FloorAsked, FloorClients int
	// When contention makes the floor: at most FloorFinishers clients can
	// do all their iterations, and the others try at least once every
	// FloorFailCycle (0: no contention counted); or, when FloorSuccesses
	// > 0, at most that many acquisitions can succeed in the run, and the
	// clients fail, once every FloorFailCycle at least, the rest of
	// their time awake.
	FloorFailCycle time.Duration
	FloorFinishers int
	FloorSuccesses uint64
	// FloorJitter, when set, is the retry jitter that FloorFailCycle takes
	// at its mean (the bound then fails with a chance under 1e-9).
	FloorJitter time.Duration
	// FloorPerRequest is the events each request of a try gives: 1
	// (delivered), 2 (and answered) or 3 (and served, by a Redis node).
	FloorPerRequest int
	// FloorLoss, when set, is the largest chance a link loses a message
	// with: the bound counts the share of the requests and replies
	// delivered, less their deviation (it then fails with a chance under
	// 1e-9).
	FloorLoss float64
	// For a run refused because its world alone would outgrow the
	// memory budget (MaxHistoryBytes): the bytes of the network's links
	// between its Endpoints processes.
	WorldBytes uint64
	Endpoints  int
	// For a run stopped because what it held at once (events scheduled,
	// messages in flight, requests waiting at its nodes) passed the
	// memory budget (MaxHistoryBytes): those bytes.
	LiveBytes uint64
}

func (e *BudgetError) Error() string {
	var b strings.Builder
	if e.Running {
		fmt.Fprintf(&b, "the run exceeded its budget after %s events and %v of virtual time", si(float64(e.Fired)), e.Measured)
	} else {
		fmt.Fprintf(&b, "the run would exceed its budget")
	}
	perSec := func(x uint64) float64 { return float64(x) / e.Duration.Seconds() }
	if e.LiveBytes > 0 {
		fmt.Fprintf(&b, ": it held %s at once (events scheduled, messages in flight, requests waiting at its nodes: a node slower than its clients' requests keeps a growing backlog), against a budget of %s (%d bytes per event of --max-events; about 1 GB of memory in all by default). ",
			bytesSI(float64(e.LiveBytes)), bytesSI(float64(e.MaxHistoryBytes)), HistoryBytesPerEvent)
		fmt.Fprintf(&b, "The key that drives it is %s = %s; lower it (or the nodes' service_time), or raise the budget with --max-events N (N ≥ %d for this run so far)", e.Key, e.Value, roundUp(e.LiveBytes/HistoryBytesPerEvent*11/10))
		return b.String()
	}
	if e.WorldBytes > 0 {
		fmt.Fprintf(&b, ": its world alone would hold %s before the first event (the network keeps a link for each ordered pair of its %d processes: %d × %d), against a budget of %s (%d bytes per event of --max-events; about 1 GB of memory in all by default). ",
			bytesSI(float64(e.WorldBytes)), e.Endpoints, e.Endpoints, e.Endpoints, bytesSI(float64(e.MaxHistoryBytes)), HistoryBytesPerEvent)
		fmt.Fprintf(&b, "The key that drives it is %s = %s; lower it, or raise the budget with --max-events N (N ≥ %d for this run)", e.Key, e.Value, e.needed())
		return b.String()
	}
	if e.Measured == 0 && e.FloorSuccesses > 0 {
		every := fmt.Sprintf("at least once every %v", e.FloorFailCycle)
		if e.FloorJitter > 0 {
			every = fmt.Sprintf("once every %v on average at least (their retry jitter of ±%v averages out: this bound fails with a chance under 1e-9)", e.FloorFailCycle, e.FloorJitter)
		}
		fmt.Fprintf(&b, ": at least %s events over duration = %v (at most %d acquisitions can succeed in the run, since the nodes hold each granted key a while; the %d clients spend the rest of their time awake failing, asking %d nodes (%s each) and unlocking them %s), against a budget of %s events (about 1 GB of memory by default). ",
			si(float64(e.Events)), e.Duration, e.FloorSuccesses, e.FloorClients, e.FloorAsked, requestEvents(e.FloorPerRequest), every, si(float64(e.MaxEvents)))
	} else if e.Measured == 0 && e.FloorFailCycle > 0 {
		fmt.Fprintf(&b, ": at least %s events over duration = %v (at most %d of the %d clients can do all their iterations, since the nodes hold each granted key a while; the others keep asking %d nodes (%s each) and unlocking them at least once every %v), against a budget of %s events (about 1 GB of memory by default). ",
			si(float64(e.Events)), e.Duration, e.FloorFinishers, e.FloorClients, e.FloorAsked, requestEvents(e.FloorPerRequest), e.FloorFailCycle, si(float64(e.MaxEvents)))
	} else if e.Measured == 0 && e.FloorCycle > 0 {
		fmt.Fprintf(&b, ": at least %s events over duration = %v (each of %d clients asks %d nodes (%s each) at least once every %v), against a budget of %s events (about 1 GB of memory by default). ",
			si(float64(e.Events)), e.Duration, e.FloorClients, e.FloorAsked, requestEvents(e.FloorPerRequest), e.FloorCycle, si(float64(e.MaxEvents)))
	} else if e.HistoryBytes == 0 {
		// A fast run: no history to count.
		fmt.Fprintf(&b, ": an estimated %s events over duration = %v (%s events per virtual second, measured over the first %v), against a budget of %s events (about 1 GB of memory by default). ",
			si(float64(e.Events)), e.Duration, si(perSec(e.Events)), e.Measured.Round(time.Millisecond), si(float64(e.MaxEvents)))
	} else {
		fmt.Fprintf(&b, ": an estimated %s events and %s of history (and trace, when narrated) over duration = %v (%s events and %s per virtual second, measured over the first %v), against a budget of %s events and %s (about 1 GB of memory by default). ",
			si(float64(e.Events)), bytesSI(float64(e.HistoryBytes)), e.Duration,
			si(perSec(e.Events)), bytesSI(perSec(e.HistoryBytes)), e.Measured.Round(time.Millisecond),
			si(float64(e.MaxEvents)), bytesSI(float64(e.MaxHistoryBytes)))
	}
	if e.Measured == 0 && e.FloorLoss > 0 {
		fmt.Fprintf(&b, "The network loses a message with a chance of up to %g: the bound counts %.4g%% of the requests, and of their replies, delivered, less their deviation (it fails with a chance under 1e-9). ",
			e.FloorLoss, 100*(1-e.FloorLoss))
	}
	fmt.Fprintf(&b, "The key that drives it is %s = %s; lower it, or raise the budget with --max-events N (N ≥ %d for this run",
		e.Key, e.Value, e.needed())
	if e.HistoryBytes > 0 || e.Measured == 0 {
		fmt.Fprintf(&b, ", which also allows %d bytes of history per event", HistoryBytesPerEvent)
	}
	b.WriteString(")")
	return b.String()
}

// requestEvents words the events one request of a try gives.
func requestEvents(n int) string {
	switch n {
	case 3:
		return "a request delivered, served and answered"
	case 2:
		return "a request delivered and answered"
	}
	return "a request delivered"
}

// needed is the event budget that would let the estimated run through.
func (e *BudgetError) needed() uint64 {
	n := e.Events
	if h := (max(e.HistoryBytes, e.WorldBytes) + HistoryBytesPerEvent - 1) / HistoryBytesPerEvent; h > n {
		n = h
	}
	return roundUp(n + n/10)
}

// roundUp rounds n up to two significant digits.
func roundUp(n uint64) uint64 {
	p := uint64(1)
	for n/p >= 100 {
		p *= 10
	}
	return (n + p - 1) / p * p
}

func si(x float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if x >= u.f {
			return fmt.Sprintf("%.3g%s", x/u.f, u.s)
		}
	}
	return fmt.Sprintf("%.3g", x)
}

func bytesSI(x float64) string { return si(x) + "B" }

// budget is a run's budget and its accounting.
type budget struct {
	maxEvents, maxHistory uint64
	every                 uint64 // events between checks
	pilot                 uint64 // events after which the estimate is made
	estimated             bool
	// The last mark of the rate before the pilot's end (see markShare),
	// and the events at which the next is taken.
	markFired, nextMark uint64
	markNow             time.Duration
	err                 *BudgetError
}

func newBudget(maxEvents uint64) *budget {
	if maxEvents == 0 {
		maxEvents = DefaultMaxEvents
	}
	every := min(watchEvery, max(maxEvents/64, 1))
	return &budget{
		maxEvents:  maxEvents,
		maxHistory: maxEvents * HistoryBytesPerEvent,
		every:      every,
		pilot:      max(maxEvents/pilotShare, every),
		nextMark:   maxEvents / pilotShare / markShare,
	}
}

// steadyOver reports whether the run's rate since the last mark is at
// least the rate since its start (less steadyWithin of it), and both would exceed the
// budget earlyMargin times over a run of d; it takes a new mark when the
// events have doubled since the last.
func (b *budget) steadyOver(fired uint64, now, d time.Duration) bool {
	if fired < b.nextMark || now <= b.markNow {
		return false
	}
	over := false
	if b.markFired > 0 {
		total := float64(fired) / float64(now)
		recent := float64(fired-b.markFired) / float64(now-b.markNow)
		limit := earlyMargin * float64(b.maxEvents) / float64(d)
		over = total > limit && recent > limit && recent >= (1-steadyWithin)*total
	}
	b.markFired, b.markNow, b.nextMark = fired, now, 2*fired
	return over
}

// historyBytes is the memory the history holds, by its slices' capacity.
func historyBytes(h *check.History) uint64 {
	n := uintptr(cap(h.Holds))*unsafe.Sizeof(check.Hold{}) +
		uintptr(cap(h.Attempts)+cap(h.Wants))*unsafe.Sizeof(check.Attempt{}) +
		uintptr(cap(h.Writes))*unsafe.Sizeof(check.Write{}) +
		uintptr(cap(h.Reads))*unsafe.Sizeof(check.Read{}) +
		uintptr(cap(h.Log))*(unsafe.Sizeof(check.Event{})+48) // with its text
	return uint64(n)
}

// traceRecordBytes is what one narrated trace record keeps, with its
// fields, by measure of the library's traces.
const traceRecordBytes = 200

// timelineRecordBytes is the share of one record in the timeline drawn
// from the records when the run ends (TimelineOf): a record gives at most
// two entries (a crash ends a key span and begins a down span), and the
// library's records give 18 bytes each on average, 25 in the run that gives
// most. The timeline does not exist while the run goes, so the watch
// counts it by its records, as it would have to be drawn.
const timelineRecordBytes = 32

// keptBytes is what the run keeps that grows with its length: in a
// narrated run the history, the trace, the delivered messages and the
// timeline the trace will give; nothing in a fast run, which keeps no
// history, but a story replay's excerpts, which grow with the number of
// violations (and at most MaxViolations of them), not with the length.
func (w *World) keptBytes() uint64 {
	n := historyBytes(w.rec.Kept()) // empty in a fast run
	if w.story != nil {
		return n + w.story.keptBytes()
	}
	if w.k.Tracing() {
		n += uint64(cap(w.k.Trace().Records())) * (traceRecordBytes + timelineRecordBytes)
		n += uint64(uintptr(cap(w.messages)) * unsafe.Sizeof(Message{}))
	}
	return n
}

// pendingEventBytes is what one scheduled event holds in the kernel's
// queue, with its slot, by a generous measure.
const pendingEventBytes = 64

// liveBytes is what the run holds now that its events do not bound: the
// events scheduled, the messages in flight, and the requests waiting at
// the nodes. A node slower than its clients (a long service_time, many
// clients) grows its backlog by a request per delivery, which the event
// budget allows into gigabytes.
func (w *World) liveBytes() uint64 {
	n := uint64(w.k.Pending())*pendingEventBytes + w.net.InFlightBytes()
	for _, node := range w.nodes {
		n += node.BacklogBytes()
	}
	return n
}

// watch is the kernel's budget check (sim.Kernel.Watch); false stops the
// run, with w.budget.err saying why.
func (w *World) watch() bool {
	b := w.budget
	fired, now := w.k.Fired(), w.k.Now()
	if live := w.liveBytes(); live > b.maxHistory {
		// Held now, whatever the rates: the run stops at its memory
		// budget, not after it.
		b.err = w.budgetError(fired, 0, fired, now, true)
		b.err.LiveBytes = live
		b.err.Key, b.err.Value = w.plan.sizeDriver()
		return false
	}
	hist := w.keptBytes()
	if now <= 0 {
		if fired > b.maxEvents {
			// Events without virtual time passing: no rate to estimate
			// from, and no end.
			b.err = w.budgetError(fired, hist, fired, now, true)
			return false
		}
		return true
	}
	// Extrapolate the rates so far to the whole run.
	scale := float64(w.plan.cfg.Duration) / float64(now)
	estEvents, estHist := uint64(float64(fired)*scale), uint64(float64(hist)*scale)
	switch {
	case fired > b.maxEvents || hist > b.maxHistory:
		b.err = w.budgetError(estEvents, estHist, fired, now, true)
		return false
	case !b.estimated && fired >= b.pilot:
		b.estimated = true
		if estEvents > b.maxEvents || estHist > b.maxHistory {
			b.err = w.budgetError(estEvents, estHist, fired, now, false)
			return false
		}
	case !b.estimated && b.steadyOver(fired, now, w.plan.cfg.Duration):
		b.estimated = true
		b.err = w.budgetError(estEvents, estHist, fired, now, false)
		return false
	}
	return true
}

func (w *World) budgetError(events, hist, fired uint64, now time.Duration, running bool) *BudgetError {
	key, value := w.plan.driver(events, w.budget.maxEvents)
	return &BudgetError{
		Events: events, HistoryBytes: hist,
		MaxEvents: w.budget.maxEvents, MaxHistoryBytes: w.budget.maxHistory,
		Measured: now, Fired: fired, Running: running,
		Key: key, Value: value, Duration: w.plan.cfg.Duration,
	}
}

// driver names the scenario key that drives an estimate of events: the
// duration when an ordinary minute of the run fits the budget many times
// over, otherwise the count of clients or nodes, whose product sets how
// many messages each acquisition costs.
func (p *Plan) driver(events, maxEvents uint64) (key, value string) {
	cfg := &p.cfg
	perMinute := float64(events) / cfg.Duration.Minutes()
	if perMinute*10 <= float64(maxEvents) || cfg.Duration > time.Hour {
		return "duration", fmt.Sprintf("%q", cfg.Duration.String())
	}
	return p.sizeDriver()
}

// sizeDriver names the larger of clients.count and nodes.count, the keys
// that set how many processes a world has.
func (p *Plan) sizeDriver() (key, value string) {
	if len(p.cfg.Clients) >= len(p.cfg.Nodes) {
		return "clients.count", fmt.Sprint(len(p.cfg.Clients))
	}
	return "nodes.count", fmt.Sprint(len(p.cfg.Nodes))
}

// runWithin runs the world to its end or to its budget, or to a write the
// resource cannot judge (see stopAtWindow).
func (w *World) runWithin(maxEvents uint64) (r Result, err error) {
	defer stopAtWindow(&r, &err)
	w.budget = newBudget(maxEvents)
	if sc := w.scorer; sc != nil {
		// The score after every event, and the budget's check after
		// every budget.every of them, as the plain watch makes it.
		every, n := w.budget.every, uint64(0)
		w.k.Watch(1, func() bool {
			sc.observe()
			if n++; n < every {
				return true
			}
			n = 0
			return w.watch()
		})
	} else {
		w.k.Watch(w.budget.every, w.watch)
	}
	r = w.Run()
	if w.budget.err == nil {
		w.watch() // the last events since the last check
	}
	if w.budget.err != nil {
		return Result{}, w.budget.err
	}
	return r, nil
}

// runBudgeted runs one world of p within maxEvents; with replay, a run
// that finds a violation is replayed to tell its stories, as Plan.Run does.
func (p *Plan) runBudgeted(seed, maxEvents uint64, trace, replay bool) (Result, error) {
	if err := p.checkFloor(maxEvents); err != nil {
		return Result{}, err
	}
	r, err := NewWorld(p, seed, trace).runWithin(maxEvents)
	if err != nil || trace || !replay || len(r.Report.Violations) == 0 {
		return r, err
	}
	return newStoryWorld(p, seed, r.Report.Violations).runWithin(maxEvents)
}

// floorEvents is a lower bound on a run's events from the Config alone,
// before anything runs, for the cases it is sure of: no faults but pauses
// of clients, no random pauses, links whose delays have a longest
// (deliveries), waits of fixed length on client clocks that drift little
// (clientTimersSure). Each client then makes an attempt at least once per
// longest cycle of its time awake (its requests timing out, then its
// critical section and think, or its retry delay, then its release; a
// lost request or reply only makes it wait its timeout, which the cycle
// counts), and each attempt delivers a request to each node it asks and
// its reply (nothing is down; with loss, a share of them, see
// lostFloor), but near the run's end, where they may arrive after it. A client that
// has done its iterations stops; but where the nodes are sure to hold a
// granted key for a while (see contention), only so many clients can
// finish, and the rest, which keep failing, try once per failing cycle
// (their requests timing out, then their retry delay or think) at least. It is 0
// when it is not sure.
func (p *Plan) floorEvents() (f floor) {
	cfg := &p.cfg
	loss, longest, ok := p.deliveries()
	if !ok {
		return floor{}
	}
	asleep, ok := p.clientPauses()
	if !ok || !p.clientTimersSure() {
		return floor{}
	}
	l, wk := cfg.Lock, cfg.Work
	f.asked = 1
	if l.Algorithm.AsksAll() {
		f.asked = len(cfg.Nodes)
	}
	acquire := l.RequestTimeout
	if l.Sequential {
		acquire *= time.Duration(f.asked)
	}
	f.cycle = acquire + max(wk.CriticalSection+wk.Think+wk.RequestTimeout, l.RetryDelay+l.RetryJitter) + l.RequestTimeout
	// A failed try sends its unlocks and waits for nothing: its retry
	// delay, or its think once its tries are used up, comes next.
	f.failCycle = acquire + max(wk.Think, l.RetryDelay+l.RetryJitter)
	f.cycle = time.Duration(float64(f.cycle) * floorStretch)
	f.failCycle = time.Duration(float64(f.failCycle) * floorStretch)
	if l.RetryJitter > 0 {
		// The same with each retry's jitter at its mean, none (see
		// failedTries), and the shortest a failed try can be.
		f.jitter = l.RetryJitter
		f.meanFailCycle = time.Duration(float64(acquire+max(wk.Think, l.RetryDelay)) * floorStretch)
		f.shortestFail = min(wk.Think, l.RetryDelay-l.RetryJitter)
	}
	if f.cycle <= 0 || f.failCycle <= 0 {
		return floor{}
	}
	f.clients = len(cfg.Clients)
	f.finishers = len(cfg.Clients)
	succ, contended := p.contention()
	if contended && wk.Iterations > 0 {
		f.finishers = min(f.finishers, int(succ.within(cfg.Duration))/wk.Iterations)
	}
	// Each try delivers a request to each node asked, and, when the
	// nodes are sure to keep up (repliesSure), its reply; a Redis node
	// also serves each command at an event of its own, its service time
	// after the one before. A failed try of a Redis lock also sends its
	// unlocks, one to each node asked, served and answered in the same
	// way, and sets its retry delay's (or its think's) timer.
	redisLock := !l.Algorithm.Store() && !l.Algorithm.Sentinel()
	perRequest := 1
	if p.repliesSure(f.failCycle) {
		perRequest = 2 // delivered, answered
		if redisLock {
			perRequest = 3 // delivered, served, answered
		}
	}
	f.perRequest = perRequest
	perTry, perFail := float64(f.asked*perRequest), float64(f.asked*perRequest)
	if redisLock {
		perFail += float64(f.asked * perRequest)
		if loss == 0 {
			perFail++ // the retry's timer; with loss, only requests are counted (see lostFloor)
		}
	}
	// A request sent less than this before the run's end may be
	// delivered, served or answered after it: the clients' time awake is
	// counted without it.
	tail := 2*longest + p.queueWait()
	// Each client's events if it may finish, and what it adds if it may
	// not: the finishers are taken to be those that would add most.
	var total float64
	var awakeAll time.Duration // the clients' time awake, all added up
	gains := make([]float64, 0, len(cfg.Clients))
	for i, c := range cfg.Clients {
		if c.Pauses.Every > 0 {
			return floor{}
		}
		awake := cfg.Duration - c.StartIn - asleep[i] - tail
		if awake <= 0 {
			gains = append(gains, 0)
			continue
		}
		awakeAll += awake
		cycles := float64(int64(float64(awake) / float64(f.cycle)))
		finishing := cycles
		if wk.Iterations > 0 {
			finishing = min(cycles, float64(wk.Iterations))
		}
		total += finishing * perTry
		// Never finishing: at most Iterations-1 acquisitions, each a
		// whole cycle, and failed tries the rest of the time.
		won := min(cycles, float64(max(wk.Iterations-1, 0)))
		failed := float64(int64(float64(awake-time.Duration(won)*f.cycle) / float64(f.failCycle)))
		gains = append(gains, max(0, won*perTry+failed*perFail-finishing*perTry))
	}
	slices.Sort(gains)
	for _, g := range gains[:len(gains)-f.finishers] { // all but the largest
		total += g
	}
	if contended {
		// However the successes fall, the clients spend the rest of
		// their time awake failing.
		if failing := succ.failedTries(awakeAll, &f, wk.Iterations, cfg.Duration) * perFail; failing > total {
			total, f.successes = failing, uint64(succ.within(cfg.Duration))
		}
	}
	if loss > 0 {
		// Every event counted is a request's (perRequest of them each):
		// at least total/perRequest requests are sent, and some are lost.
		f.loss = loss
		total = lostFloor(total/float64(perRequest), perRequest, loss)
	}
	f.events = uint64(total)
	return f
}

// deliveries is, for the floor, the largest loss probability of any link
// and the longest delay any link can give; false when a link's delay has
// no longest (an exponential, a lognormal or an empirical one), so that a
// message may arrive after any time.
func (p *Plan) deliveries() (loss float64, longest time.Duration, ok bool) {
	n := &p.cfg.Network
	loss = n.Loss
	longest, ok = n.Latency.Longest()
	for _, l := range n.Links {
		if l.Loss != nil {
			loss = max(loss, *l.Loss)
		}
		if l.Latency.Kind != 0 {
			d, sure := l.Latency.Longest()
			longest, ok = max(longest, d), ok && sure
		}
	}
	return loss, longest, ok && loss < 1
}

// queueWait is the longest a request waits at a node behind the others,
// for the floor: each client has at most its try's request (or its
// unlock) and, with Redisson's watchdog, a renewal waiting at a node at
// once, each taking the node's service time.
func (p *Plan) queueWait() time.Duration {
	return p.slowestService() * time.Duration(p.requestsAtOnce()*len(p.cfg.Clients))
}

// requestsAtOnce is how many requests each client may have waiting at one
// node at once: its try's and its unlock's, and its watchdog's renewal.
func (p *Plan) requestsAtOnce() int {
	if p.cfg.Lock.Renewal == client.Watchdog {
		return 3
	}
	return 2
}

// lostFloor is a lower bound on the events that requests requests give
// (perRequest each when none is lost: delivered, served by a Redis node,
// and answered) when each message is lost with chance loss, drawn afresh
// at its send: of the requests, at least (1−loss)·requests − dev are
// delivered, and of the replies to those, (1−loss) of them less their
// dev, where dev = sqrt(n·lossLogOdds/2) for n draws (Hoeffding's
// inequality, for the first n draws, which the senders' choices cannot
// bias: each draw is fresh). Each bound fails with a chance under
// 0.5e-9.
func lostFloor(requests float64, perRequest int, loss float64) float64 {
	q := 1 - loss
	dev := func(n float64) float64 { return math.Sqrt(n * lossLogOdds / 2) }
	delivered := max(0, q*requests-dev(requests))
	events := delivered
	if perRequest == 3 {
		events += delivered // each served at an event of its own
	}
	if perRequest >= 2 {
		events += max(0, q*delivered-dev(delivered))
	}
	return events
}

// lossLogOdds is ln(2e9): a share of n fresh draws, each a success with
// chance q, falls below q·n − sqrt(n·lossLogOdds/2) with a chance under
// 0.5e-9 (Hoeffding).
const lossLogOdds = 21.42

// failedTries is a lower bound on the failed tries of clients awake for
// awake in all, when at most s's successes can happen: the clients' time
// awake, less what their successful cycles can take (each success one
// cycle at most, and no more successes than the clients' iterations) and
// the time of those that have done their iterations (at most
// s.within(t)/iterations of them by time t), is spent failing, one failed
// try per failCycle at most; or, since each retry's jitter is drawn
// afresh around no change, per meanFailCycle on average, but for their
// sum's deviation (jitterSlack). Each client's last try, which the run's
// end may cut short, is not counted. The second bound is set in
// f.averaged when it is the larger.
func (s successes) failedTries(awake time.Duration, f *floor, iterations int, d time.Duration) float64 {
	all := s.within(d)
	if iterations > 0 {
		all = min(all, float64(f.clients*iterations))
	}
	failing := awake.Seconds() - all*f.cycle.Seconds()
	if iterations > 0 {
		failing -= s.doneTime(float64(f.clients), float64(iterations), d.Seconds())
	}
	sure := failing/f.failCycle.Seconds() - float64(f.clients)
	if f.meanFailCycle > 0 && f.shortestFail > 0 {
		tries := failing / f.shortestFail.Seconds() // at most
		slack := f.jitter.Seconds() * floorStretch * math.Sqrt(2*jitterLogOdds*tries)
		if averaged := (failing-slack)/f.meanFailCycle.Seconds() - float64(f.clients); averaged > sure {
			f.averaged = true
			return max(0, averaged)
		}
	}
	return max(0, sure)
}

// jitterLogOdds is ln(1e9): the retry delays of the failed tries, each
// drawn uniformly within ±jitter of the retry delay, add up to more than
// their mean's total plus jitter·sqrt(2·jitterLogOdds·n), over any n of n
// tries at most, with a chance under 1e-9 (Hoeffding's maximal
// inequality). The floor that counts on it overstates a run once in a
// billion at most.
const jitterLogOdds = 20.72

// doneTime bounds the time, added up over the clients, that clients of
// n spend done with their iterations in a run of d seconds: at time t at
// most min(n, s.within(t)/iterations) of them are done.
func (s successes) doneTime(n, iterations, d float64) float64 {
	// s.within(t)/iterations is a line, first/iterations + rate/iterations·t,
	// that reaches n at full.
	a, b := s.first/iterations, s.perSecond/iterations
	full := (n - a) / b
	switch {
	case full <= 0:
		return n * d
	case full >= d:
		return a*d + b*d*d/2
	}
	return a*full + b*full*full/2 + n*(d-full)
}

// repliesSure reports whether every request a try sends is answered
// within the run, for the floor: a node serves one request at a time, and
// if it cannot serve each client's try and unlocks within the shortest
// cycle (service_time of a second, a thousand clients) its backlog
// grows and the replies come later, or after the run's end.
func (p *Plan) repliesSure(cycle time.Duration) bool {
	return float64(p.slowestService())*float64(p.requestsAtOnce()*len(p.cfg.Clients)) <= float64(cycle)
}

// slowestService is the longest service time of a node that serves the
// lock.
func (p *Plan) slowestService() time.Duration {
	slowest := p.cfg.Store.ServiceTime
	if !p.cfg.Lock.Algorithm.Store() {
		for _, n := range p.cfg.Nodes {
			slowest = max(slowest, n.Redis.ServiceTime)
		}
	}
	return slowest
}

// clientTimersSure reports whether the clients' waits last in true time
// what the Config says, to within the stretch the floor allows for
// (floorStretch): a critical section and a think of fixed length (drawn
// from a distribution, they hold only their means), and client clocks
// that only drift a little, without steps, slews or rate changes.
func (p *Plan) clientTimersSure() bool {
	wk := p.cfg.Work
	if wk.CriticalSectionDist.Kind != 0 || wk.ThinkDist.Kind != 0 {
		return false
	}
	for _, c := range p.cfg.Clients {
		k := c.Clock
		if len(k.Steps) > 0 || len(k.Slews) > 0 || len(k.RateChanges) > 0 || math.Abs(k.RatePPM)+c.RateSpread > maxDriftPPM {
			return false
		}
	}
	return true
}

// floorStretch lengthens every cycle the floor counts by the most a
// client's clock, maxDriftPPM slow, lengthens its timers.
const floorStretch = 1 + maxDriftPPM/1e6

// floor is floorEvents' bound and what it is made of, for the message.
type floor struct {
	events           uint64
	cycle, failCycle time.Duration
	asked            int
	clients          int
	finishers        int // clients that may do all their iterations
	perRequest       int // events per request: delivered, served, answered
	// successes is, when the bound is the clients' failing (see
	// successes.failedTries), how many acquisitions at most succeed.
	successes uint64
	// The failed tries' cycle with the retry jitter at its mean, the
	// jitter, and the shortest failed try; averaged when the bound
	// counts on the jitter averaging out.
	meanFailCycle, jitter, shortestFail time.Duration
	averaged                            bool
	// loss is the largest loss probability of a link, when the bound
	// counts only the share of the requests and replies delivered
	// (lostFloor).
	loss float64
}

// clientPauses is the time each client is paused by the Config's pause
// faults, by its index; false when a fault of another kind, or a pause of
// another process, makes the floor unsure.
func (p *Plan) clientPauses() ([]time.Duration, bool) {
	asleep := make([]time.Duration, len(p.cfg.Clients))
	for _, f := range p.cfg.Faults {
		i := slices.IndexFunc(p.cfg.Clients, func(c ClientConfig) bool { return c.Name == f.Target })
		if f.Kind != Pause || i < 0 {
			return nil, false
		}
		asleep[i] += f.For
	}
	return asleep, true
}

// successes bounds the acquisitions that can succeed within any span of
// virtual time: at most first + perSecond × its length in seconds.
type successes struct{ first, perSecond float64 }

func (s successes) within(d time.Duration) float64 { return s.first + s.perSecond*d.Seconds() }

// contention is how many acquisitions at most can succeed in any span of
// the run, when that is sure: a Redis lock (single or Redlock, without
// sentinel, a quorum counted at start-up or a renewal but Redisson's
// watchdog, which only keeps a held key longer: it renews it until its
// holder's unlock, which cancels it first), no faults but
// client pauses (checked by the caller), and node clocks that only drift
// a little. Each success then holds a key on a quorum of the nodes asked
// for at least hold (its TTL, or until its holder releases it, at the
// earliest after its critical section or a resource request's timeout),
// and a node holds one key at a time: each node serves at most
// span/hold + 1 of them in a span.
func (p *Plan) contention() (s successes, ok bool) {
	cfg := &p.cfg
	l, wk := cfg.Lock, cfg.Work
	if l.Algorithm.Store() || l.Algorithm.Sentinel() || (l.Renewal != 0 && l.Renewal != client.Watchdog) || l.QuorumOfReached {
		return successes{}, false
	}
	for _, n := range cfg.Nodes {
		c := n.Clock
		if len(c.Steps) > 0 || len(c.Slews) > 0 || len(c.RateChanges) > 0 || math.Abs(c.RatePPM)+n.RateSpread > maxDriftPPM {
			return successes{}, false
		}
	}
	// A key expires by its node's clock, at most maxDriftPPM fast: the
	// tenth taken off covers it many times over.
	hold := min(l.TTL, wk.CriticalSection, wk.RequestTimeout) / 10 * 9
	if hold <= 0 {
		return successes{}, false
	}
	asked, quorum := 1, 1
	if l.Algorithm.AsksAll() {
		asked, quorum = len(cfg.Nodes), l.QuorumOf(len(cfg.Nodes))
	}
	perQuorum := float64(asked) / float64(quorum)
	s = successes{first: perQuorum, perSecond: perQuorum / hold.Seconds()}
	if s.within(cfg.Duration) > math.MaxInt32 {
		return successes{}, false
	}
	return s, true
}

// maxDriftPPM is the node clock drift contention allows for.
const maxDriftPPM = 10_000

// checkFloor refuses, before the world is built, a run whose lower bound
// of events exceeds the budget.
func (p *Plan) checkFloor(maxEvents uint64) error {
	b := newBudget(maxEvents)
	if world := network.LinkBytes(len(p.procs)); world > b.maxHistory {
		e := &BudgetError{
			MaxEvents: b.maxEvents, MaxHistoryBytes: b.maxHistory,
			Duration: p.cfg.Duration, WorldBytes: world, Endpoints: len(p.procs),
		}
		e.Key, e.Value = p.sizeDriver()
		return e
	}
	f := p.floorEvents()
	if f.events <= b.maxEvents {
		return nil
	}
	e := &BudgetError{
		Events: f.events, MaxEvents: b.maxEvents, MaxHistoryBytes: b.maxHistory,
		Duration: p.cfg.Duration, FloorCycle: f.cycle, FloorAsked: f.asked, FloorClients: f.clients,
	}
	e.FloorPerRequest, e.FloorLoss = f.perRequest, f.loss
	switch {
	case f.successes > 0:
		e.FloorFailCycle, e.FloorSuccesses = f.failCycle, f.successes
		if f.averaged {
			e.FloorFailCycle, e.FloorJitter = f.meanFailCycle, f.jitter
		}
	case f.finishers < f.clients:
		e.FloorFailCycle, e.FloorFinishers = f.failCycle, f.finishers
	}
	e.Key, e.Value = p.driver(f.events, b.maxEvents)
	return e
}

// CheckBudget refuses a run of p, before anything is built or run, whose
// lower bound of events from the Config alone exceeds maxEvents (0:
// DefaultMaxEvents), with the *BudgetError a run would return. It is nil
// when the run fits or the bound is not sure (faults, pauses, loss): a
// sweep checks every point with it before its first run.
func (p *Plan) CheckBudget(maxEvents uint64) error { return p.checkFloor(maxEvents) }
