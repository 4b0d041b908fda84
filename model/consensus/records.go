package consensus

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// record is the lock of the locks that keep it in one versioned object
// written by compare-and-set on its version: client-go's Lease (its
// resourceVersion) and the DynamoDB lock client's item (its record version
// number). The store never expires a record: a waiter takes it over by
// its own clock, and the store only checks the version it names.
type record struct {
	name    string
	version int64  // the store's revision at the last write; 0 before the first
	holder  uint64 // the holder's lock value; 0 when free
	peer    network.Endpoint
	ttl     time.Duration // the lease duration the holder wrote
}

// recordOf is record name, created free at version 0 on first use.
func (s *Store) recordOf(name string) *record {
	return named(&s.records, s.recByName, name, func(name string) record { return record{name: name} })
}

// readRecord answers a RecordRead: the record's version, holder and lease
// duration.
func (s *Store) readRecord(env proto.Env, from network.Endpoint, m proto.Msg) {
	r := s.recordOf(m.Key)
	s.stats.RecordReads++
	env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Key: r.name, Int: r.version, Value: r.holder, TTL: r.ttl})
}

// putRecord answers a RecordPut: if the record's version is m.Int, it
// takes holder m.Value (0 frees it) and lease duration m.TTL at a new
// revision; else the write is refused with Err Conflict and the record as
// it is. A change of holder is observed: KeyGone for the one it replaces
// (OK when another took it over, as an expiry is), KeySet for the new one
// with the new version as Token.
func (s *Store) putRecord(env proto.Env, from network.Endpoint, m proto.Msg) {
	r := s.recordOf(m.Key)
	if r.version != m.Int {
		s.stats.Conflicts++
		if env.Tracing() {
			story.Trace(env, story.ConflictRecord{By: env.NameOf(from), Named: story.Text(m.Int), Version: story.Text(r.version)})
		}
		env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, Err: proto.Conflict, Key: r.name, Int: r.version, Value: r.holder, TTL: r.ttl})
		return
	}
	s.revision++
	prev, prevPeer := r.holder, r.peer
	r.version, r.holder, r.peer, r.ttl = s.revision, m.Value, from, m.TTL
	s.stats.RecordPuts++
	if prev != r.holder {
		if prev != 0 {
			env.Observe(proto.Observation{Kind: proto.KeyGone, OK: r.holder != 0, Lock: prev, Peer: prevPeer})
		}
		if r.holder != 0 {
			env.Observe(proto.Observation{Kind: proto.KeySet, OK: true, Lock: r.holder, Token: uint64(r.version), Peer: from})
		}
		if env.Tracing() {
			story.Trace(env, story.SetRecord{By: env.NameOf(from), Holder: story.Text(r.holder), Version: story.Text(r.version)})
		}
	}
	env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Key: r.name, Int: r.version, Value: r.holder, TTL: r.ttl})
}
