package proto

import "github.com/redlocksim/redlocksim/network"

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
