package story

// The typed facts: one struct per kind of record (see Fact), with the
// record's keys in their tags, in the order the records carry them, and
// the sentence the kind reads as.

import (
	"fmt"
	"strings"

	"github.com/redlocksim/redlocksim/network"
)

// Acquire is a record of kind Acquires.
type Acquire struct {
	Nodes    string `story:"nodes"`
	Validity string `story:"validity"`
	Value    string `story:"value"`
	Token    string `story:"token"`
}

// Kind implements Fact.
func (Acquire) Kind() string { return Acquires }

func (e Acquire) Sentence() string {
	where := "on " + e.Nodes
	if e.Nodes == "store" { // the lease lock
		where = "from the store"
	}
	return fmt.Sprintf("acquires the lock %s (validity %s, value %s)", where, dur(e.Validity), Value(e.Value))
}

// GetToken is a record of kind GetsToken.
type GetToken struct {
	Token string `story:"token"`
	From  string `story:"from"`
}

// Kind implements Fact.
func (GetToken) Kind() string { return GetsToken }

func (e GetToken) Sentence() string {
	return fmt.Sprintf("gets fencing token %s from %s", e.Token, e.From)
}

// TryFail is a record of kind TryFails.
type TryFail struct {
	Why string `story:"why"`
}

// Kind implements Fact.
func (TryFail) Kind() string { return TryFails }

func (e TryFail) Sentence() string { return "fails to acquire: " + e.Why }

// LetGo is a record of kind LetsGo.
type LetGo struct {
	Why string `story:"why"`
}

// Kind implements Fact.
func (LetGo) Kind() string { return LetsGo }

func (e LetGo) Sentence() string { return "stops believing it holds the lock: " + e.Why }

// SendWrite is a record of kind Writes.
type SendWrite struct {
	Element     string `story:"element"`
	Token       string `story:"token"`
	ReadVersion string `story:"read-version"`
}

// Kind implements Fact.
func (SendWrite) Kind() string { return Writes }

func (e SendWrite) Sentence() string {
	s := fmt.Sprintf("sends its write (element %s", Value(e.Element))
	if t := e.Token; t != "" && t != "0" {
		s += ", token " + t
	}
	return s + fmt.Sprintf(", based on version %s)", e.ReadVersion)
}

// GiveUp is a record of kind GivesUp.
type GiveUp struct {
	WaitingFor string `story:"waiting-for"`
}

// Kind implements Fact.
func (GiveUp) Kind() string { return GivesUp }

func (e GiveUp) Sentence() string { return "gives up waiting for its " + e.WaitingFor + " reply" }

// AbandonWrite is a record of kind AbandonsWrite.
type AbandonWrite struct {
	Remaining string `story:"remaining"`
}

// Kind implements Fact.
func (AbandonWrite) Kind() string { return AbandonsWrite }

func (e AbandonWrite) Sentence() string {
	return "abandons its write: only " + dur(e.Remaining) + " of validity left"
}

// Extend is a record of kind Extends.
type Extend struct {
	Validity  string `story:"validity"`
	Extension string `story:"extension"`
	Key       string `story:"key"`
	Value     string `story:"value"`
	Expire    string `story:"expire"`
}

// Kind implements Fact.
func (Extend) Kind() string { return Extends }

func (e Extend) Sentence() string {
	if e.Key != "" { // a node pushing back a key's expiry
		return fmt.Sprintf("extends the %s key (value %s, expires when its wall clock reads %s)", e.Key, Value(e.Value), e.Expire)
	}
	return fmt.Sprintf("extends the lock (extension %s, validity %s)", e.Extension, dur(e.Validity))
}

// ExtendFail is a record of kind ExtendFails.
type ExtendFail struct {
	OK string `story:"ok"`
}

// Kind implements Fact.
func (ExtendFail) Kind() string { return ExtendFails }

func (e ExtendFail) Sentence() string {
	return fmt.Sprintf("fails to extend the lock (%s nodes agreed)", e.OK)
}

// Renew is a record of kind Renews.
type Renew struct {
	TTL string `story:"ttl"`
}

// Kind implements Fact.
func (Renew) Kind() string { return Renews }

func (e Renew) Sentence() string {
	return fmt.Sprintf("renews the lock to its full TTL of %s (the watchdog)", dur(e.TTL))
}

// RenewalStop is a record of kind RenewalStops.
type RenewalStop struct {
	OK string `story:"ok"`
}

// Kind implements Fact.
func (RenewalStop) Kind() string { return RenewalStops }

func (e RenewalStop) Sentence() string {
	return fmt.Sprintf("stops renewing the lock: the renewal failed (%s nodes agreed), and nothing tells the application", e.OK)
}

// AbortWork is a record of kind AbortsWork.
type AbortWork struct {
	Why string `story:"why"`
}

// Kind implements Fact.
func (AbortWork) Kind() string { return AbortsWork }

func (e AbortWork) Sentence() string { return "aborts its work: " + e.Why }

// Connect is a record of kind Connects.
type Connect struct {
	Nodes  string `story:"nodes"`
	Quorum string `story:"quorum"`
}

// Kind implements Fact.
func (Connect) Kind() string { return Connects }

func (e Connect) Sentence() string {
	return fmt.Sprintf("connects to %s and counts its quorum, %s, from them", e.Nodes, e.Quorum)
}

// LoseLease is a record of kind LeaseLost.
type LoseLease struct {
	Lease string `story:"lease"`
}

// Kind implements Fact.
func (LoseLease) Kind() string { return LeaseLost }

func (e LoseLease) Sentence() string { return fmt.Sprintf("learns that its lease %s is gone", e.Lease) }

// RefuseRead is a record of kind ReadRefused.
type RefuseRead struct {
	Err string `story:"err"`
}

// Kind implements Fact.
func (RefuseRead) Kind() string { return ReadRefused }

func (e RefuseRead) Sentence() string { return "has its read refused: " + e.Err }

// Suspend is a record of kind Suspended.
type Suspend struct {
	Session   string `story:"session"`
	SilentFor string `story:"silent-for"`
}

// Kind implements Fact.
func (Suspend) Kind() string { return Suspended }

func (e Suspend) Sentence() string {
	return fmt.Sprintf("finds its connection SUSPENDED (session %s, silent for %s)", e.Session, e.SilentFor)
}

// Reconnect is a record of kind Reconnected.
type Reconnect struct {
	Session string `story:"session"`
}

// Kind implements Fact.
func (Reconnect) Kind() string { return Reconnected }

func (e Reconnect) Sentence() string { return fmt.Sprintf("is RECONNECTED (session %s)", e.Session) }

// LoseSession is a record of kind SessionLost.
type LoseSession struct {
	Session string `story:"session"`
	Why     string `story:"why"`
}

// Kind implements Fact.
func (LoseSession) Kind() string { return SessionLost }

func (e LoseSession) Sentence() string {
	return fmt.Sprintf("has its session %s LOST: %s", e.Session, e.Why)
}

// Observe is a record of kind Observes.
type Observe struct {
	Version string `story:"version"`
	Holder  string `story:"holder"`
}

// Kind implements Fact.
func (Observe) Kind() string { return Observes }

func (e Observe) Sentence() string {
	return fmt.Sprintf("sees the lock record at version %s (holder %s)", e.Version, Value(e.Holder))
}

// StopLeading is a record of kind StopsLeading.
type StopLeading struct {
	Why string `story:"why"`
}

// Kind implements Fact.
func (StopLeading) Kind() string { return StopsLeading }

func (e StopLeading) Sentence() string { return "stops leading: " + e.Why }

// DelayLock is a record of kind LockDelayed.
type DelayLock struct {
	Key string `story:"key"`
	By  string `story:"by"`
	For string `story:"for"`
}

// Kind implements Fact.
func (DelayLock) Kind() string { return LockDelayed }

func (e DelayLock) Sentence() string {
	return fmt.Sprintf("refuses %s the %s key: its lock-delay runs %s more", e.By, e.Key, dur(e.For))
}

// SetRecord is a record of kind RecordSet.
type SetRecord struct {
	By      string `story:"by"`
	Holder  string `story:"holder"`
	Version string `story:"version"`
}

// Kind implements Fact.
func (SetRecord) Kind() string { return RecordSet }

func (e SetRecord) Sentence() string {
	if e.Holder == "0" {
		return fmt.Sprintf("frees the lock record at %s's request (version %s)", e.By, e.Version)
	}
	return fmt.Sprintf("writes the lock record for %s (holder %s, version %s)", e.By, Value(e.Holder), e.Version)
}

// ConflictRecord is a record of kind RecordConflict.
type ConflictRecord struct {
	By      string `story:"by"`
	Named   string `story:"named"`
	Version string `story:"version"`
}

// Kind implements Fact.
func (ConflictRecord) Kind() string { return RecordConflict }

func (e ConflictRecord) Sentence() string {
	return fmt.Sprintf("refuses %s's write of the lock record: it names version %s, the record is at %s", e.By, e.Named, e.Version)
}

// Remark is a record of kind Note.
type Remark struct {
	Text string `story:"text"`
}

// Kind implements Fact.
func (Remark) Kind() string { return Note }

func (e Remark) Sentence() string { return e.Text }

// Pause is a record of kind Pauses.
type Pause struct {
	Why string `story:"why"`
	For string `story:"for"`
}

// Kind implements Fact.
func (Pause) Kind() string { return Pauses }

func (e Pause) Sentence() string { return fmt.Sprintf("pauses (%s) for %s", e.Why, e.For) }

// Resume is a record of kind Resumes.
type Resume struct {
	HeldEvents string `story:"held-events"`
}

// Kind implements Fact.
func (Resume) Kind() string { return Resumes }

func (e Resume) Sentence() string {
	if e.HeldEvents == "" { // a real process: what waited is in its sockets
		return "wakes up"
	}
	return fmt.Sprintf("wakes up; %s events were waiting for it", e.HeldEvents)
}

// Crash is a record of kind Crashes.
type Crash struct {
	Restart   string `story:"restart"`
	RestartIn string `story:"restart-in"`
}

// Kind implements Fact.
func (Crash) Kind() string { return Crashes }

func (Crash) Sentence() string { return "crashes" }

// LosePower is a record of kind LosesPower.
type LosePower struct {
	Restart   string `story:"restart"`
	RestartIn string `story:"restart-in"`
}

// Kind implements Fact.
func (LosePower) Kind() string { return LosesPower }

func (LosePower) Sentence() string { return "loses power" }

// Restart is a record of kind Restarts.
type Restart struct {
}

// Kind implements Fact.
func (Restart) Kind() string { return Restarts }

func (Restart) Sentence() string { return "restarts" }

// StepClock is a record of kind ClockStep.
type StepClock struct {
	By  string `story:"by"`
	PPM string `story:"ppm"`
}

// Kind implements Fact.
func (StepClock) Kind() string { return ClockStep }

func (e StepClock) Sentence() string { return "wall clock steps " + Signed(e.By) }

// SlewClock is a record of kind ClockSlew.
type SlewClock struct {
	By  string `story:"by"`
	PPM string `story:"ppm"`
}

// Kind implements Fact.
func (SlewClock) Kind() string { return ClockSlew }

func (e SlewClock) Sentence() string { return "wall clock starts slewing by " + Signed(e.By) }

// RateClock is a record of kind ClockRate.
type RateClock struct {
	By  string `story:"by"`
	PPM string `story:"ppm"`
}

// Kind implements Fact.
func (RateClock) Kind() string { return ClockRate }

func (e RateClock) Sentence() string { return "clock rate error becomes " + e.PPM + " ppm" }

// DelaySpike is a record of kind Spike.
type DelaySpike struct {
	From  string `story:"from"`
	To    string `story:"to"`
	For   string `story:"for"`
	By    string `story:"by"`
	Links string `story:"links"`
}

// Kind implements Fact.
func (DelaySpike) Kind() string { return Spike }

func (e DelaySpike) Sentence() string {
	return fmt.Sprintf("delays messages %s→%s sent in the next %s by %s more", e.From, e.To, e.For, e.By)
}

// LoseMessages is a record of kind Loss.
type LoseMessages struct {
	Prob string `story:"prob"`
}

// Kind implements Fact.
func (LoseMessages) Kind() string { return Loss }

func (e LoseMessages) Sentence() string { return "loses each message with probability " + e.Prob }

// Elect is a record of kind Election.
type Elect struct {
	For string `story:"for"`
}

// Kind implements Fact.
func (Elect) Kind() string { return Election }

func (e Elect) Sentence() string {
	return "starts a leader election that lasts " + e.For
}

// Start is a record of kind Starts.
type Start struct {
	Role        string `story:"role"`
	Keys        string `story:"keys"`
	Persistence string `story:"persistence"`
	Lost        string `story:"lost"`
	Expired     string `story:"expired"`
	Reloaded    string `story:"reloaded"`
}

// Kind implements Fact.
func (Start) Kind() string { return Starts }

func (e Start) Sentence() string {
	keys := e.Keys + " keys"
	switch e.Keys {
	case "0":
		keys = "an empty keyspace"
	case "1":
		keys = "1 key"
	}
	s := fmt.Sprintf("starts as %s with %s (persistence %s)", e.Role, keys, e.Persistence)
	// A restart names the lock values it lost, expired and reloaded:
	// the key count alone never tells a teacher which lock vanished.
	// Without persistence a lost value never reached the disk; with
	// an AOF it is one the power loss caught before its fsync.
	if e.Lost != "" {
		why := "not fsynced"
		if e.Persistence == "none" {
			why = "never on disk"
		}
		s += fmt.Sprintf("; has lost %s (%s)", values(e.Lost), why)
	}
	if e.Expired != "" {
		s += fmt.Sprintf("; expires %s on load", values(e.Expired))
	}
	if e.Reloaded != "" {
		s += "; reloads " + values(e.Reloaded)
	}
	return s
}

// SetKey is a record of kind Sets.
type SetKey struct {
	Key    string `story:"key"`
	Value  string `story:"value"`
	Expire string `story:"expire"`
}

// Kind implements Fact.
func (SetKey) Kind() string { return Sets }

func (e SetKey) Sentence() string {
	return fmt.Sprintf("sets the %s key (value %s, expires when its wall clock reads %s)", e.Key, Value(e.Value), e.Expire)
}

// ExpireKey is a record of kind Expires.
type ExpireKey struct {
	Key   string `story:"key"`
	Value string `story:"value"`
}

// Kind implements Fact.
func (ExpireKey) Kind() string { return Expires }

func (e ExpireKey) Sentence() string {
	return fmt.Sprintf("expires the %s key (value %s)", e.Key, Value(e.Value))
}

// DeleteKey is a record of kind Deletes.
type DeleteKey struct {
	Key   string `story:"key"`
	Value string `story:"value"`
}

// Kind implements Fact.
func (DeleteKey) Kind() string { return Deletes }

func (e DeleteKey) Sentence() string {
	return fmt.Sprintf("deletes the %s key (value %s)", e.Key, Value(e.Value))
}

// OverwriteKey is a record of kind Overwrites.
type OverwriteKey struct {
	Key   string `story:"key"`
	Value string `story:"value"`
}

// Kind implements Fact.
func (OverwriteKey) Kind() string { return Overwrites }

func (e OverwriteKey) Sentence() string {
	return fmt.Sprintf("overwrites the %s key (value %s)", e.Key, Value(e.Value))
}

// Refuse is a record of kind Refuses.
type Refuse struct {
	Cmd  string `story:"cmd"`
	Err  string `story:"err"`
	From string `story:"from"`
}

// Kind implements Fact.
func (Refuse) Kind() string { return Refuses }

func (e Refuse) Sentence() string {
	return fmt.Sprintf("refuses %s from %s: %s", e.Cmd, e.From, e.Err)
}

// Ignore is a record of kind Ignores.
type Ignore struct {
	Message string `story:"kind"`
	From    string `story:"from"`
}

// Kind implements Fact.
func (Ignore) Kind() string { return Ignores }

func (e Ignore) Sentence() string { return fmt.Sprintf("ignores a %s from %s", e.Message, e.From) }

// SendFullSync is a record of kind FullSync.
type SendFullSync struct {
	To     string `story:"to"`
	Offset string `story:"offset"`
	Keys   string `story:"keys"`
}

// Kind implements Fact.
func (SendFullSync) Kind() string { return FullSync }

func (e SendFullSync) Sentence() string {
	return fmt.Sprintf("sends a full sync to %s (%s keys)", e.To, e.Keys)
}

// Sync is a record of kind Synced.
type Sync struct {
	Master string `story:"master"`
	Offset string `story:"offset"`
	Keys   string `story:"keys"`
}

// Kind implements Fact.
func (Sync) Kind() string { return Synced }

func (e Sync) Sentence() string {
	return fmt.Sprintf("is in sync with master %s (%s keys)", e.Master, e.Keys)
}

// GapInReplication is a record of kind ReplicationGap.
type GapInReplication struct {
	Applied string `story:"applied"`
	Got     string `story:"got"`
}

// Kind implements Fact.
func (GapInReplication) Kind() string { return ReplicationGap }

func (e GapInReplication) Sentence() string {
	return fmt.Sprintf("sees a gap in the replication stream (applied up to %s, got %s) and asks for a full sync", e.Applied, e.Got)
}

// BePromoted is a record of kind Promoted.
type BePromoted struct {
	WasReplicaOf string `story:"was_replica_of"`
	Offset       string `story:"offset"`
}

// Kind implements Fact.
func (BePromoted) Kind() string { return Promoted }

func (e BePromoted) Sentence() string {
	return "is promoted to master (was a replica of " + e.WasReplicaOf + ")"
}

// Replicate is a record of kind ReplicaOf.
type Replicate struct {
	Node   string `story:"node"`
	Master string `story:"master"`
}

// Kind implements Fact.
func (Replicate) Kind() string { return ReplicaOf }

func (e Replicate) Sentence() string {
	if e.Node != "" {
		return fmt.Sprintf("tells %s to replicate %s", e.Node, e.Master)
	}
	return "becomes a replica of " + e.Master
}

// DeclareMasterDown is a record of kind MasterDown.
type DeclareMasterDown struct {
	Master    string `story:"master"`
	DownAfter string `story:"down_after"`
	Promoting string `story:"promoting"`
}

// Kind implements Fact.
func (DeclareMasterDown) Kind() string { return MasterDown }

func (e DeclareMasterDown) Sentence() string {
	return fmt.Sprintf("declares master %s down after %s; promotes %s", e.Master, e.DownAfter, e.Promoting)
}

// TellPromote is a record of kind Promote.
type TellPromote struct {
	Node string `story:"node"`
}

// Kind implements Fact.
func (TellPromote) Kind() string { return Promote }

func (e TellPromote) Sentence() string { return "tells " + e.Node + " to become master" }

// SwitchMasters is a record of kind SwitchMaster.
type SwitchMasters struct {
	Master string `story:"master"`
}

// Kind implements Fact.
func (SwitchMasters) Kind() string { return SwitchMaster }

func (e SwitchMasters) Sentence() string {
	return "sees " + e.Master + " report itself master; tells the clients and the other replicas"
}

// ServeRead is a record of kind Read.
type ServeRead struct {
	By      string `story:"by"`
	Token   string `story:"token"`
	Lock    string `story:"lock"`
	Version string `story:"version"`
	Size    string `story:"size"`
}

// Kind implements Fact.
func (ServeRead) Kind() string { return Read }

func (e ServeRead) Sentence() string {
	return fmt.Sprintf("serves %s's read (version %s)", e.By, e.Version)
}

// AcceptWrite is a record of kind Write.
type AcceptWrite struct {
	By      string `story:"by"`
	Token   string `story:"token"`
	Lock    string `story:"lock"`
	Element string `story:"element"`
	Base    string `story:"base"`
	Version string `story:"version"`
	Drops   string `story:"drops"`
}

// Kind implements Fact.
func (AcceptWrite) Kind() string { return Write }

func (e AcceptWrite) Sentence() string {
	s := fmt.Sprintf("accepts %s's write (element %s, version %s", e.By, Value(e.Element), e.Version)
	if t := e.Token; t != "" {
		s += ", token " + t
	}
	s += ")"
	if d := strings.Trim(e.Drops, "[]"); d != "" {
		var names []string
		for _, e := range strings.Fields(d) {
			names = append(names, Value(e))
		}
		s += "; the update of " + strings.Join(names, ", ") + " is lost"
	}
	return s
}

// RejectWrite is a record of kind Reject.
type RejectWrite struct {
	By      string `story:"by"`
	Token   string `story:"token"`
	Lock    string `story:"lock"`
	Element string `story:"element"`
	Reason  string `story:"reason"`
}

// Kind implements Fact.
func (RejectWrite) Kind() string { return Reject }

func (e RejectWrite) Sentence() string { return fmt.Sprintf("rejects %s's write: %s", e.By, e.Reason) }

// GrantLease is a record of kind LeaseGrant.
type GrantLease struct {
	Lease string `story:"lease"`
	TTL   string `story:"ttl"`
	To    string `story:"to"`
}

// Kind implements Fact.
func (GrantLease) Kind() string { return LeaseGrant }

func (e GrantLease) Sentence() string {
	return fmt.Sprintf("grants lease %s (ttl %s) to %s", e.Lease, e.TTL, e.To)
}

// GiveKey is a record of kind Lock.
type GiveKey struct {
	Key   string `story:"key"`
	Lease string `story:"lease"`
	Rev   string `story:"rev"`
	To    string `story:"to"`
	Value string `story:"value"`
}

// Kind implements Fact.
func (GiveKey) Kind() string { return Lock }

func (e GiveKey) Sentence() string {
	return fmt.Sprintf("gives the %s key to %s (lease %s, revision %s)", e.Key, e.To, e.Lease, e.Rev)
}

// QueueForKey is a record of kind LockWait.
type QueueForKey struct {
	Key      string `story:"key"`
	Lease    string `story:"lease"`
	By       string `story:"by"`
	Position string `story:"position"`
	Holder   string `story:"holder"`
}

// Kind implements Fact.
func (QueueForKey) Kind() string { return LockWait }

func (e QueueForKey) Sentence() string {
	return fmt.Sprintf("queues %s for the %s key (lease %s)", e.By, e.Key, e.Lease)
}

// DeleteHeldKey is a record of kind Unlock.
type DeleteHeldKey struct {
	Key   string `story:"key"`
	Lease string `story:"lease"`
	Rev   string `story:"rev"`
	By    string `story:"by"`
}

// Kind implements Fact.
func (DeleteHeldKey) Kind() string { return Unlock }

func (e DeleteHeldKey) Sentence() string {
	return fmt.Sprintf("deletes the %s key at %s's request (lease %s, revision %s)", e.Key, e.By, e.Lease, e.Rev)
}

// ExpireLease is a record of kind LeaseExpired.
type ExpireLease struct {
	Lease string `story:"lease"`
	Key   string `story:"key"`
	Rev   string `story:"rev"`
}

// Kind implements Fact.
func (ExpireLease) Kind() string { return LeaseExpired }

func (e ExpireLease) Sentence() string {
	if e.Key != "" {
		return fmt.Sprintf("expires lease %s and deletes the %s key (revision %s)", e.Lease, e.Key, e.Rev)
	}
	return fmt.Sprintf("expires lease %s", e.Lease)
}

// RevokeLease is a record of kind LeaseRevoked.
type RevokeLease struct {
	Lease string `story:"lease"`
	Key   string `story:"key"`
	Rev   string `story:"rev"`
}

// Kind implements Fact.
func (RevokeLease) Kind() string { return LeaseRevoked }

func (e RevokeLease) Sentence() string {
	if e.Key != "" {
		return fmt.Sprintf("revokes lease %s and deletes the %s key (revision %s)", e.Lease, e.Key, e.Rev)
	}
	return fmt.Sprintf("revokes lease %s", e.Lease)
}

// AnswerNoLease is a record of kind NoLease.
type AnswerNoLease struct {
	Op    string `story:"op"`
	Lease string `story:"lease"`
	By    string `story:"by"`
}

// Kind implements Fact.
func (AnswerNoLease) Kind() string { return NoLease }

func (e AnswerNoLease) Sentence() string {
	return fmt.Sprintf("answers %s's %s: lease %s is gone", e.By, e.Op, e.Lease)
}

// LoseLeader is a record of kind Unavailable.
type LoseLeader struct {
	Leases string `story:"leases"`
	Queued string `story:"queued"`
}

// Kind implements Fact.
func (LoseLeader) Kind() string { return Unavailable }

func (LoseLeader) Sentence() string { return "loses its leader (requests wait)" }

// RegainLeader is a record of kind Available.
type RegainLeader struct {
	Renewed string `story:"renewed"`
	Queued  string `story:"queued"`
}

// Kind implements Fact.
func (RegainLeader) Kind() string { return Available }

func (RegainLeader) Sentence() string { return "has a leader again and renews every lease" }

// KeepAlive is a record of kind Keepalive.
type KeepAlive struct {
	Lease string `story:"lease"`
}

// Kind implements Fact.
func (KeepAlive) Kind() string { return Keepalive }

// Sentence is empty: one per lease per second is noise, left out.
func (KeepAlive) Sentence() string { return "" }

// The network's four facts are its own (network/records.go): the network
// emits them and cannot import this package.
type (
	Cut           = network.CutRecord
	HealAll       = network.HealRecord
	DropMessage   = network.DropRecord
	TamperMessage = network.TamperRecord
)

// facts are the typed facts of every kind, for Decode.
var facts = []Fact{
	Acquire{},
	GetToken{},
	TryFail{},
	LetGo{},
	SendWrite{},
	GiveUp{},
	AbandonWrite{},
	Extend{},
	ExtendFail{},
	Renew{},
	RenewalStop{},
	AbortWork{},
	Connect{},
	LoseLease{},
	RefuseRead{},
	Suspend{},
	Reconnect{},
	LoseSession{},
	Observe{},
	StopLeading{},
	DelayLock{},
	SetRecord{},
	ConflictRecord{},
	Remark{},
	Pause{},
	Resume{},
	Crash{},
	LosePower{},
	Restart{},
	StepClock{},
	SlewClock{},
	RateClock{},
	DelaySpike{},
	LoseMessages{},
	Elect{},
	Start{},
	SetKey{},
	ExpireKey{},
	DeleteKey{},
	OverwriteKey{},
	Refuse{},
	Ignore{},
	SendFullSync{},
	Sync{},
	GapInReplication{},
	BePromoted{},
	Replicate{},
	DeclareMasterDown{},
	TellPromote{},
	SwitchMasters{},
	ServeRead{},
	AcceptWrite{},
	RejectWrite{},
	GrantLease{},
	GiveKey{},
	QueueForKey{},
	DeleteHeldKey{},
	ExpireLease{},
	RevokeLease{},
	AnswerNoLease{},
	LoseLeader{},
	RegainLeader{},
	KeepAlive{},
	Cut{},
	HealAll{},
	DropMessage{},
	TamperMessage{},
}
