package client

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
)

// purpose tells replies and timers apart. It sits in the low 8 bits of
// request ids and timer tags, a node index in the 16 bits above it and a
// generation in the top 40 (see tag).
type purpose uint8

const (
	pLock purpose = 1 + iota
	pRelease
	pExtend
	pWait
	pToken
	pRead
	pWrite
	pGrant
	pKeepAlive
	pCreate
	pRevoke
	pCheck
	pConnect
	// timers only
	tStart
	tRetry
	tValidity
	tComputed
	tThink
	tExtendDue
	tKeepAliveDue
	tOpTimeout
	tSuspend
	tLost
	tReqTimeout
	tAttempt
	pRecRead
	pRecPut
)

const (
	idxBits = 16
	// allNodes in a timer tag means every request of the round still
	// waiting. It is one more than the largest node index, so that no node
	// can be mistaken for it.
	allNodes = 1<<idxBits - 1
	// MaxNodes is the most nodes a client can address: 65534, far above
	// the 1000 that scenario files allow.
	MaxNodes = allNodes
	// genBits is what is left for a generation: 2^40 generations outlast
	// any run, as a client bumps one a few times per event it handles and a
	// run handles well under 2^40 events.
	genBits = 64 - 8 - idxBits
)

// tag packs a purpose, a generation and a node index into a request id or
// timer tag. A generation or index that does not fit is a broken invariant:
// New refuses more than MaxNodes nodes, and generations cannot get there.
func tag(p purpose, gen uint64, idx int) uint64 {
	if gen>>genBits != 0 || idx < 0 || idx > allNodes {
		panic("client: generation or node index out of range of a tag")
	}
	return gen<<(8+idxBits) | uint64(idx)<<8 | uint64(p)
}

func untag(t uint64) (p purpose, gen uint64, idx int) {
	return purpose(t & 0xff), t >> (8 + idxBits), int(t >> 8 & allNodes)
}

// reply is one node's part in a round. The zero value is waiting, so that
// clearing a round's replies starts it afresh.
type reply uint8

const (
	waiting reply = iota // asked, no answer yet
	granted              // said OK
	refused              // said no, or timed out
	skipped              // not asked: only the master is, in single and failover
)

// round is one acquire or extend round over the nodes: who answered what,
// and the request timeout in flight. Generation 0 marks a closed round,
// whose late replies and timers are ignored.
type round struct {
	gen      uint64
	start    time.Duration // on the elapsed clock, when the round began
	replies  []reply       // per node
	oks      int           // replies granted
	refusals int           // replies refused (skipped nodes not counted)
	answered int           // replies no longer waiting, skipped ones included
	next     int           // sequential: the next node to ask
	timer    proto.TimerID
}

func newRound(nodes int) round { return round{replies: make([]reply, nodes)} }

// begin starts the round afresh under generation gen.
func (r *round) begin(gen uint64, start time.Duration) {
	r.gen, r.start = gen, start
	clear(r.replies)
	r.oks, r.refusals, r.answered, r.next = 0, 0, 0, 0
}

// only asks node i alone: every other node counts as answered.
func (r *round) only(i int) {
	for j := range r.replies {
		if j != i {
			r.replies[j] = skipped
			r.answered++
		}
	}
}

// close makes the round ignore what still arrives for it.
func (r *round) close() { r.gen = 0 }

// awaits reports whether node idx's reply to round gen is still wanted.
func (r *round) awaits(gen uint64, idx int) bool {
	return gen != 0 && gen == r.gen && idx < len(r.replies) && r.replies[idx] == waiting
}

// record takes node i's answer.
func (r *round) record(i int, ok bool) {
	if ok {
		r.replies[i] = granted
		r.oks++
	} else {
		r.replies[i] = refused
		r.refusals++
	}
	r.answered++
}

// complete reports whether every node has answered.
func (r *round) complete() bool { return r.answered == len(r.replies) }

// timedOut counts the requests a timeout of round gen covers (node idx, or
// allNodes) that are still waiting as refused, calling answer for each. It
// stops early if an answer closes the round.
func (r *round) timedOut(gen uint64, idx int, answer func(i int)) {
	if idx != allNodes {
		if r.awaits(gen, idx) {
			answer(idx)
		}
		return
	}
	for i := range r.replies {
		if r.awaits(gen, i) {
			answer(i)
		}
	}
}
