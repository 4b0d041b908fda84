package redis_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
)

const (
	ms  = time.Millisecond
	us  = time.Microsecond
	st  = redis.DefaultServiceTime
	key = "lock"
)

func setNX(req, v uint64, ttl time.Duration) proto.Msg {
	return proto.Msg{Kind: proto.SetNX, Req: req, Key: key, Value: v, TTL: ttl}
}

func get(req uint64, k string) proto.Msg { return proto.Msg{Kind: proto.Get, Req: req, Key: k} }

// single builds a world with one node n1 and clients c1, c2.
func single(t *testing.T, cfg redis.Config, spec clocks.Spec) (*actortest.World, *redis.Node, *actortest.Proc, *actortest.Probe, *actortest.Probe) {
	w := actortest.New(t, 1, true)
	n := redis.New(cfg)
	p := w.Add("n1", n, spec)
	c1, c2 := w.AddProbe("c1"), w.AddProbe("c2")
	return w, n, p, c1, c2
}

// SET key value NX PX ttl: the lock is granted to one value at a time, and
// again once it expired (distlock page, "Correct Redis implementation").
func TestSetNXGrantsOneValueAtATime(t *testing.T) {
	w, n, _, c1, c2 := single(t, redis.Config{}, clocks.Spec{})
	w.Start()
	c1.Send(0, "n1", setNX(1, 111, 10*time.Second))
	c2.Send(time.Second, "n1", setNX(2, 222, 10*time.Second))
	c2.Send(time.Second, "n1", get(3, key))
	c2.Send(11*time.Second, "n1", setNX(4, 222, 10*time.Second))
	w.Run(20 * time.Second)

	r := c1.Reply(1)
	require.True(t, r.OK, "first SET NX")
	require.Equal(t, st, r.At, "reply after one service time")
	require.False(t, c2.Reply(2).OK, "SET NX on a held key")
	g := c2.Reply(3).Msg
	require.True(t, g.OK)
	require.Equal(t, uint64(111), g.Value, "the second SET NX must not overwrite")
	require.True(t, c2.Reply(4).OK, "SET NX after expiry")
	v, exp, ok := n.Value(key, 11*time.Second+st)
	require.True(t, ok)
	require.Equal(t, uint64(222), v)
	require.Equal(t, 21*time.Second+st, exp)
}

// Expiry is absolute on the node's wall clock: present one nanosecond
// before, gone at the deadline, and the node notices it at the deadline.
func TestExpiryExactlyAtWallDeadline(t *testing.T) {
	w, n, _, c1, _ := single(t, redis.Config{}, clocks.Spec{})
	w.Start()
	c1.Send(0, "n1", setNX(1, 7, 10*time.Second))
	// GETs are served one service time after they arrive.
	deadline := st + 10*time.Second
	c1.Send(deadline-st-time.Nanosecond, "n1", get(2, key))
	w.Run(deadline - time.Nanosecond)
	require.True(t, c1.Reply(2).OK, "GET executed 1ns before the expiry")
	_, exp, ok := n.Value(key, deadline-time.Nanosecond)
	require.True(t, ok)
	require.Equal(t, deadline, exp)
	_, _, ok = n.Value(key, deadline)
	require.False(t, ok, "Value at the deadline")
	require.Empty(t, w.Observed("n1", proto.KeyGone), "gone before the deadline")

	w.Run(deadline)
	gone := w.Observed("n1", proto.KeyGone)
	require.Len(t, gone, 1)
	require.Equal(t, deadline, gone[0].At, "the node observes the expiry at the deadline")
	require.True(t, gone[0].OK, "KeyGone OK marks an expiry")
	require.Equal(t, uint64(7), gone[0].Lock)

	c1.Send(deadline, "n1", get(3, key))
	w.Run(deadline + time.Second)
	require.False(t, c1.Reply(3).OK, "GET after the deadline")
	require.Len(t, w.Observed("n1", proto.KeyGone), 1, "one expiry, one observation")
}

// Lazy expiry on access: a key whose deadline passed while a command was
// queued is gone for that command, whatever the timer order.
func TestExpiryCheckedOnAccess(t *testing.T) {
	w, _, _, c1, c2 := single(t, redis.Config{ServiceTime: 2 * time.Second}, clocks.Spec{})
	w.Start()
	c1.Send(0, "n1", setNX(1, 7, time.Second)) // served at 2s: expires at 3s
	c2.Send(0, "n1", setNX(2, 8, time.Second)) // served at 4s: lock expired at 3s
	w.Run(10 * time.Second)
	require.True(t, c1.Reply(1).OK)
	require.Equal(t, 2*time.Second, c1.Reply(1).At)
	require.True(t, c2.Reply(2).OK, "the queued SET NX runs after the expiry")
	gone := w.Observed("n1", proto.KeyGone)
	require.Len(t, gone, 2)
	require.Equal(t, 3*time.Second, gone[0].At)
	require.Equal(t, uint64(7), gone[0].Lock)
}

// "A forward jump of the server's clock expires keys early" (§1); a
// backward step keeps the key longer.
func TestWallClockStepMovesExpiry(t *testing.T) {
	for _, tc := range []struct {
		name   string
		steps  []clocks.Step
		goneAt time.Duration
	}{
		{"no step", nil, 10*time.Second + st},
		{"forward 9s at 2s", []clocks.Step{{At: 2 * time.Second, By: 9 * time.Second}}, 2 * time.Second},
		{"forward 5s at 2s", []clocks.Step{{At: 2 * time.Second, By: 5 * time.Second}}, 5*time.Second + st},
		{"backward 5s at 2s", []clocks.Step{{At: 2 * time.Second, By: -5 * time.Second}}, 15*time.Second + st},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _, _, c1, c2 := single(t, redis.Config{}, clocks.Spec{Steps: tc.steps})
			w.Start()
			c1.Send(0, "n1", setNX(1, 7, 10*time.Second))
			c2.Send(tc.goneAt-st, "n1", setNX(2, 8, 10*time.Second))
			c2.Send(tc.goneAt-st-time.Nanosecond, "n1", setNX(3, 9, 10*time.Second))
			w.Run(30 * time.Second)
			gone := w.Observed("n1", proto.KeyGone)
			require.NotEmpty(t, gone)
			require.Equal(t, tc.goneAt, gone[0].At, "expiry observed")
			require.True(t, gone[0].OK)
			require.False(t, c2.Reply(3).OK, "SET NX 1ns before the expiry")
			require.True(t, c2.Reply(2).OK, "SET NX at the expiry")
		})
	}
}

// The release and extend scripts compare the value: another client's value
// is left alone, value and expiry.
func TestCompareScriptsLeaveOthersAlone(t *testing.T) {
	w, n, _, c1, c2 := single(t, redis.Config{}, clocks.Spec{})
	w.Start()
	c1.Send(0, "n1", setNX(1, 111, 10*time.Second))
	c2.Send(time.Second, "n1", proto.Msg{Kind: proto.CompareDel, Req: 2, Key: key, Value: 222})
	c2.Send(2*time.Second, "n1", proto.Msg{Kind: proto.CompareExtend, Req: 3, Key: key, Value: 222, TTL: time.Hour})
	w.Run(3 * time.Second)
	require.Equal(t, int64(0), c2.Reply(2).Int, "CompareDel with another value")
	require.Equal(t, int64(0), c2.Reply(3).Int, "CompareExtend with another value")
	v, exp, ok := n.Value(key, 3*time.Second)
	require.True(t, ok)
	require.Equal(t, uint64(111), v)
	require.Equal(t, 10*time.Second+st, exp, "expiry untouched")

	c1.Send(5*time.Second, "n1", proto.Msg{Kind: proto.CompareExtend, Req: 4, Key: key, Value: 111, TTL: 20 * time.Second})
	w.Run(6 * time.Second)
	require.Equal(t, int64(1), c1.Reply(4).Int)
	_, exp, _ = n.Value(key, 6*time.Second)
	require.Equal(t, 25*time.Second+st, exp, "extended to now+TTL")
	require.Len(t, w.Observed("n1", proto.KeySet), 1, "an extension is not a new KeySet")

	c1.Send(7*time.Second, "n1", proto.Msg{Kind: proto.CompareDel, Req: 5, Key: key, Value: 111})
	w.Run(8 * time.Second)
	require.Equal(t, int64(1), c1.Reply(5).Int)
	_, _, ok = n.Value(key, 8*time.Second)
	require.False(t, ok)
	gone := w.Observed("n1", proto.KeyGone)
	require.Len(t, gone, 1)
	require.False(t, gone[0].OK, "a deletion is not an expiry")
	require.Equal(t, 7*time.Second+st, gone[0].At)
}

func TestIncr(t *testing.T) {
	n := redis.New(redis.Config{})
	n.Preload("fence", 32)
	w, _, c := actortest.Single(t, true, "n1", n)
	incr := func(req uint64, k string) proto.Msg { return proto.Msg{Kind: proto.Incr, Req: req, Key: k} }
	c.Send(0, "n1", incr(1, "fence"))
	c.Send(0, "n1", incr(2, "fence"))
	c.Send(0, "n1", incr(3, "other"))
	c.Send(0, "n1", setNX(4, 5, 0))
	c.Send(0, "n1", incr(5, key))
	c.Send(0, "n1", get(6, "fence"))
	w.Run(time.Second)
	require.Equal(t, int64(33), c.Reply(1).Int, "first INCR after preloading 32")
	require.Equal(t, int64(34), c.Reply(2).Int)
	require.Equal(t, int64(1), c.Reply(3).Int, "INCR of a missing key")
	require.False(t, c.Reply(5).OK, "INCR of a lock value is an error")
	require.Equal(t, int64(34), c.Reply(6).Int)
	require.Empty(t, w.Observed("n1", proto.KeyGone))
	require.Len(t, w.Observed("n1", proto.KeySet), 1, "only the lock key is observed")
}

// Commands are served FIFO, one per service time; a busy node queues.
func TestServiceTimeQueueing(t *testing.T) {
	w, n, _, c1, c2 := single(t, redis.Config{ServiceTime: time.Millisecond}, clocks.Spec{})
	w.Start()
	for i := uint64(1); i <= 3; i++ {
		c1.Send(time.Second, "n1", get(i, key))
	}
	c2.Send(time.Second, "n1", setNX(4, 1, 0))
	c1.Send(time.Second+10*ms, "n1", get(5, key)) // idle again by then
	w.Run(time.Second + 2*ms)
	require.Equal(t, 2, n.Queued(), "two commands still waiting")
	w.Run(2 * time.Second)
	for i, want := range []time.Duration{1, 2, 3} {
		require.Equal(t, time.Second+want*ms, c1.Reply(uint64(i+1)).At, "GET %d", i+1)
	}
	require.Equal(t, time.Second+4*ms, c2.Reply(4).At)
	require.Equal(t, time.Second+11*ms, c1.Reply(5).At)
	require.True(t, c1.Reply(5).OK)
	require.Zero(t, n.Queued())
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, redis.Config{}.Validate())
	err := redis.Config{Persistence: 9, FsyncEvery: -1, ServiceTime: -1, ReplicationDelay: -1,
		MinReplicasToWrite: -1, MinReplicasMaxLag: -1, ReplicaOf: "n 1"}.Validate()
	require.Error(t, err)
	for _, want := range []string{"Persistence", "FsyncEvery", "ServiceTime", "ReplicationDelay",
		"MinReplicasToWrite", "MinReplicasMaxLag", "ReplicaOf"} {
		require.Contains(t, err.Error(), want)
	}
	require.Panics(t, func() { redis.New(redis.Config{ServiceTime: -1}) })
	d := redis.Config{}.WithDefaults()
	require.Equal(t, redis.None, d.Persistence)
	require.Equal(t, time.Second, d.FsyncEvery)
	require.Equal(t, 10*time.Second, d.MinReplicasMaxLag)
}

func TestPersistenceText(t *testing.T) {
	for _, p := range []redis.Persistence{redis.None, redis.AOFEverySec, redis.AOFAlways} {
		b, err := p.MarshalText()
		require.NoError(t, err)
		var q redis.Persistence
		require.NoError(t, q.UnmarshalText(b))
		require.Equal(t, p, q)
	}
	_, err := redis.ParsePersistence("sometimes")
	require.ErrorContains(t, err, `"sometimes"`)
	require.True(t, strings.HasPrefix(redis.Persistence(0).String(), "Persistence("))
}
