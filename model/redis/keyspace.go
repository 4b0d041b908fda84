package redis

import (
	"math"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
)

// NoExpiry is the expiry of a key without a TTL: a wall-clock reading no
// clock reaches before clocks.Horizon.
const NoExpiry = time.Duration(math.MaxInt64)

// valueKind tells a lock value from an INCR counter. The zero value marks a
// free slot.
type valueKind uint8

const (
	_         valueKind = iota
	lockValue           // SET NX: an opaque value (the lock's random value)
	intValue            // INCR: an int64, stored as its uint64 bits
)

// entry is one key. Entries live in fixed slots of Node.keys so that an
// expiry timer can name its slot; gen tells a stale timer from a live one.
type entry struct {
	key    string
	kind   valueKind
	val    uint64
	expire time.Duration // absolute, on the node's wall clock; NoExpiry if none
	gen    uint32
	timer  proto.TimerID
	stale  bool // set during a full sync: not (yet) confirmed by the master
}

func (e *entry) used() bool { return e.kind != 0 }

// find returns the slot holding key, or -1. The keyspace is a handful of
// keys (the lock key and a fencing counter), so a linear scan beats a map
// and iterates in a fixed order.
func find(keys []entry, key string) int {
	for i := range keys {
		if keys[i].used() && keys[i].key == key {
			return i
		}
	}
	return -1
}

// copyKeys copies the used entries of src into dst[:0] without their timers,
// reusing dst's backing array: an fsync of a tiny keyspace allocates nothing
// in steady state.
func copyKeys(dst, src []entry) []entry {
	dst = dst[:0]
	for _, e := range src {
		if e.used() {
			e.timer = proto.TimerID{}
			e.stale = false
			dst = append(dst, e)
		}
	}
	return dst
}
