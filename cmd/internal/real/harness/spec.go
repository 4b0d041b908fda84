package harness

import (
	"time"

	"github.com/redlocksim/redlocksim/clocks"

	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
	"golang.org/x/sys/unix"
)

// ClientSpec is everything a client process needs: the harness writes it
// as JSON on the child's stdin. Every time is already scaled.
type ClientSpec struct {
	Name      string
	ID        int    // 1-based, as model/client numbers clients: lock values and elements carry it
	Driver    string // a key of drivers: which lock client runs
	Nodes     []string
	FenceAddr string // the fence node through this client's proxy, or ""
	FenceKey  string
	Resource  string // the resource server through this client's proxy
	Lock      client.LockConfig
	Work      client.WorkConfig
	StartIn   time.Duration // after T0
	End       time.Duration // after T0: the run's end
	T0        int64         // the run's start on CLOCK_MONOTONIC, ns
	Seed      uint64
	// SelfStops are the pauses the client takes itself, after T0, once its
	// lock requests are on the wire (see stopper); the harness resumes it.
	SelfStops []time.Duration
	// AcquireStops are the client's pauses on acquisition, which it takes
	// itself (see AcquireStop); the harness resumes it.
	AcquireStops []AcquireStop `json:",omitempty"`
	// The failover lock: the Sentinel's address and every node's own
	// address (to map the Sentinel's answer onto Nodes).
	SentinelAddr string
	NodeAddrs    []string
	// Clock is the client's own clock (scaled, its clock faults folded in,
	// its rate spread drawn), which the raw client reads through its
	// segments (ownClock); nil: ideal clocks. The other drivers read Go's
	// clock, which no clock file reaches.
	Clock *clocks.Spec `json:",omitempty"`
}

// AcquireStop is a pause on acquisition (a pause fault with OnAcquire):
// the client's first acquisition at or after From stops it for For.
//
// The model pauses the client once the step in which it learnt that it
// holds is over: its first request of the work (the fencing token's INCR,
// or else its read of the resource) sent, and the reply and the request's
// timeout held until it wakes, then handed over in the order they came
// due, the reply first. A stop sent by the harness on reading the
// acquisition record lands tens of microseconds to a millisecond later:
// before that request leaves, or after its reply was read, or in
// between, and then the reply and the request's deadline are both due
// when the client wakes, which Go resolves either way (the deadline often
// first: the client gives its work up). So the client stops itself
// (SIGSTOP of its process group) as soon as that reply is in or the
// request has failed, before it does anything with either, and writes a
// stop record (EvStop, Until the acquisition plus For) first; the harness
// sends SIGCONT at Until. The client wakes where the model's does, at
// the same time after the acquisition, with the reply in hand; the reply's
// round trip falls before the stop instead of inside it.
type AcquireStop struct {
	From time.Duration // after T0: the pause is armed from then
	For  time.Duration
}

// Event is one line a client process writes on its stdout, as JSON. At is
// CLOCK_MONOTONIC minus the run's T0: every process on the machine reads
// the same monotonic clock, so the client's stamps are the harness's.
type Event struct {
	At    time.Duration `json:"t"`
	Kind  string        `json:"k"`
	OK    bool          `json:"ok,omitempty"`
	Lock  uint64        `json:"lock,omitempty"`
	Token uint64        `json:"token,omitempty"`
	Until time.Duration `json:"until,omitempty"` // hold, extend: the believed end of validity; negative: none, the holder keeps the lock until it unlocks (the watchdog)
	Text  string        `json:"text,omitempty"`
	N     int           `json:"n,omitempty"` // extend: which extension of the hold
}

// The kinds of Event, in the order of a client's workload. The facts the
// checker judges are the simulated client's own observations, under their
// wire names (proto.ObsKind.String), and model.RecordClient records them
// for both; the rest are the real process's narration.
var (
	EvAttempt    = proto.AttemptStart.String() // an acquire operation (with its retries) begins
	EvAttemptEnd = proto.AttemptEnd.String()   // it ends; OK says whether it got the lock
	EvHold       = proto.HoldStart.String()    // the client believes it holds the lock (Lock, Until)
	EvToken      = proto.TokenIssued.String()  // the client got fencing token Token for hold Lock (Text: from where, "" for the fence node)
	EvHoldEnd    = proto.HoldEnd.String()      // the client stops believing (Text: why)
)

const (
	EvReady   = "ready"   // the process is up and connected
	EvConnect = "connect" // the client keeps the nodes it reached at start-up (Text), quorum N (redlock-py)
	EvExtend  = "extend"  // a renewal round of hold Lock ended: OK, the new Until, extension N, Text: how many nodes agreed
	EvAbort   = "abort"   // the lock library stops the work (Text: why)
	EvNote    = "note"    // anything else worth a line in the log
	EvStop    = "stop"    // the client stops itself for a pause on acquisition of hold Lock until Until (Text: where in its work)
)

// Observation is ev as the simulated client's observation, if it is one
// of those (an attempt's start or end, a hold's start or end, a token).
func (ev Event) Observation() (proto.Observation, bool) {
	k, ok := proto.ParseObsKind(ev.Kind)
	if !ok {
		return proto.Observation{}, false
	}
	return proto.Observation{Kind: k, OK: ev.OK, Lock: ev.Lock, Token: ev.Token}, true
}

// monoNow reads CLOCK_MONOTONIC in nanoseconds, the clock that every
// process on this machine shares.
func monoNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("harness: CLOCK_MONOTONIC unreadable: " + err.Error())
	}
	return ts.Nano()
}
