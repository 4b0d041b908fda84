package proto

import (
	"fmt"

	"github.com/redlocksim/redlocksim/network"
)

// ObsKind is what an Observation reports. The zero value is invalid.
type ObsKind uint8

const (
	_            ObsKind = iota
	AttemptStart         // a client begins one acquire operation (with its retries)
	AttemptEnd           // it ends: OK says whether it got the lock
	HoldStart            // a client now believes it holds the lock with value Lock (and Token)
	HoldEnd              // it no longer believes so (released, or its validity ran out)
	TokenIssued          // a client learned fencing token Token for hold Lock
	WriteDone            // the resource accepted (OK) or rejected (Err) a write of Element by Peer under Lock/Token
	KeySet               // a node stored the lock key with Lock
	KeyGone              // a node's lock key Lock expired or was deleted (OK: expired)
	ReadDone             // the resource served a read by Peer under Lock/Token
	Finished             // a client made its last attempt (its iterations are done) and will send nothing more
)

// Observation is one fact an actor reports to the world. The world stamps it
// with the true time and the actor's name and hands it to the checker.
type Observation struct {
	Kind    ObsKind
	OK      bool
	Err     Err
	Lock    uint64 // the lock value naming the hold
	Token   uint64
	Element uint64
	Peer    network.Endpoint
	// Want is, for a write the resource refused (WriteDone with Err), the
	// token or owner it wanted instead of Token or Lock, from which
	// resource.Refusal says why. An observation carries facts, never
	// words: the narration is the actors' Trace records alone.
	Want uint64
	// Dropped and Restored are, for a write the resource accepted, the
	// elements it took out of the current set (those the base's set lacks)
	// and those of the base's set it put back, sorted, without duplicates;
	// both nil when the write was based on the current version.
	Dropped, Restored []uint64
}

// obsKindNames are the observation kinds' wire names: how a real client
// process reports the same facts on its stdout (the real harness's Event),
// so that the simulator and a real run speak one vocabulary.
var obsKindNames = [...]string{
	AttemptStart: "attempt",
	AttemptEnd:   "attempt-end",
	HoldStart:    "hold",
	HoldEnd:      "hold-end",
	TokenIssued:  "token",
	WriteDone:    "write",
	KeySet:       "key-set",
	KeyGone:      "key-gone",
	ReadDone:     "read",
	Finished:     "finished",
}

// String is the kind's wire name.
func (k ObsKind) String() string {
	if k > 0 && int(k) < len(obsKindNames) {
		return obsKindNames[k]
	}
	return fmt.Sprintf("ObsKind(%d)", k)
}

// ParseObsKind is the inverse of ObsKind.String; ok is false for a name
// that is no observation kind.
func ParseObsKind(name string) (k ObsKind, ok bool) {
	for i := 1; i < len(obsKindNames); i++ {
		if obsKindNames[i] == name {
			return ObsKind(i), true
		}
	}
	return 0, false
}
