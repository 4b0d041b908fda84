package redis_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/network"
)

type cluster struct {
	w      *actortest.World
	nodes  []*redis.Node
	procs  []*actortest.Proc
	c1, c2 *actortest.Probe
	admin  *actortest.Probe // sends REPLICAOF, as a sentinel would
}

// newCluster builds master n1 and replicas n2..n<replicas+1>, with the
// given one-way latency on every link.
func newCluster(t *testing.T, replicas int, master redis.Config, replica redis.Config, lat time.Duration, specs ...clocks.Spec) *cluster {
	c := &cluster{w: actortest.New(t, 1, true)}
	c.w.Net().SetDefaultLatency(network.Constant(lat))
	for i := 0; i <= replicas; i++ {
		cfg := master
		if i > 0 {
			cfg = replica
			cfg.ReplicaOf = "n1"
		}
		var spec clocks.Spec
		if i < len(specs) {
			spec = specs[i]
		}
		n := redis.New(cfg)
		c.nodes = append(c.nodes, n)
		c.procs = append(c.procs, c.w.Add("n"+string(rune('1'+i)), n, spec))
	}
	c.c1, c.c2, c.admin = c.w.AddProbe("c1"), c.w.AddProbe("c2"), c.w.AddProbe("sentinel")
	c.w.Start()
	return c
}

func (c *cluster) replicaOf(at time.Duration, node string, master int64) {
	c.admin.Send(at, node, proto.Msg{Kind: proto.ReplicaOf, Int: master})
}

func TestReplicaAppliesMasterWritesWithAbsoluteExpiry(t *testing.T) {
	c := newCluster(t, 1, redis.Config{ReplicationDelay: 50 * ms}, redis.Config{}, 0)
	c.c1.Send(time.Second, "n1", setNX(1, 111, 10*time.Second))
	c.c1.Send(time.Second, "n2", setNX(2, 111, 10*time.Second))
	c.w.Run(time.Second + 50*ms)
	require.True(t, c.c1.Reply(1).OK)
	require.Equal(t, proto.ReadOnly, c.c1.Reply(2).Err, "a replica refuses writes")
	_, _, ok := c.nodes[1].Value(key, time.Second+50*ms)
	require.False(t, ok, "not yet shipped: the write is held back ReplicationDelay")
	c.w.Run(time.Second + 51*ms)
	v, exp, ok := c.nodes[1].Value(key, time.Second+51*ms)
	require.True(t, ok, "shipped at write time + ReplicationDelay")
	require.Equal(t, uint64(111), v)
	require.Equal(t, 11*time.Second+st, exp, "the master's absolute expiry")
	require.Equal(t, int64(1), c.nodes[1].Offset())
	set := c.w.Observed("n2", proto.KeySet)
	require.Len(t, set, 1)
	require.Equal(t, time.Second+st+50*ms, set[0].At)

	c.c2.Send(2*time.Second, "n2", get(3, key))
	c.w.Run(3 * time.Second)
	require.True(t, c.c2.Reply(3).OK, "a replica serves reads")
}

// §2: "Client A locks on the master; the master dies before the write
// reaches the replica; the replica is promoted; client B locks the same
// key. Both hold it." Without the crash, the replica has the key.
func TestMasterCrashBeforeShippingLosesTheKey(t *testing.T) {
	for _, crash := range []bool{true, false} {
		t.Run(map[bool]string{true: "crash before shipping", false: "no crash"}[crash], func(t *testing.T) {
			c := newCluster(t, 1, redis.Config{ReplicationDelay: 50 * ms, Persistence: redis.AOFAlways}, redis.Config{}, 0)
			c.c1.Send(time.Second, "n1", setNX(1, 111, 10*time.Second))
			if crash {
				c.w.At(time.Second+10*ms, func() { c.w.Crash(c.procs[0], false) })
			}
			c.replicaOf(time.Second+100*ms, "n2", -1) // after the shipping time
			c.c2.Send(time.Second+200*ms, "n2", setNX(2, 222, 10*time.Second))
			c.w.Run(2 * time.Second)
			require.True(t, c.c1.Reply(1).OK, "A locks on the master")
			require.Equal(t, redis.Master, c.nodes[1].Role(), "n2 promoted")
			require.Equal(t, crash, c.c2.Reply(2).OK, "B locks on the promoted replica")
		})
	}
}

// A promoted replica expires the key by its own wall clock (Redis 7
// replicates absolute expiries).
func TestReplicaExpiresByItsOwnWallClock(t *testing.T) {
	c := newCluster(t, 1, redis.Config{}, redis.Config{}, 0, clocks.Spec{}, clocks.Spec{Offset: 3 * time.Second})
	c.c1.Send(time.Second, "n1", setNX(1, 111, 10*time.Second))
	c.w.Run(20 * time.Second)
	gone := c.w.Observed("n2", proto.KeyGone)
	require.Len(t, gone, 1)
	require.Equal(t, 8*time.Second+st, gone[0].At, "n2's wall clock is 3s ahead: it expires the key 3s early")
	require.True(t, gone[0].OK)
	gone = c.w.Observed("n1", proto.KeyGone)
	require.Equal(t, 11*time.Second+st, gone[0].At)
}

// A write whose absolute expiry the replica's wall clock has already
// reached is not stored there at all.
func TestReplicaSkipsWritesAlreadyExpiredByItsClock(t *testing.T) {
	c := newCluster(t, 1, redis.Config{}, redis.Config{}, 0, clocks.Spec{}, clocks.Spec{Offset: 5 * time.Second})
	c.c1.Send(time.Second, "n1", setNX(1, 111, 2*time.Second))
	c.w.Run(10 * time.Second)
	require.True(t, c.c1.Reply(1).OK)
	require.Empty(t, c.w.Observed("n2", proto.KeySet))
	require.Empty(t, c.w.Observed("n2", proto.KeyGone))
	require.Equal(t, c.nodes[0].Offset(), c.nodes[1].Offset(), "the write and its expiry still count")
}

// WAIT n timeout answers as soon as n replicas acknowledged every earlier
// write, or at the timeout with the count it has.
func TestWaitCountsAcknowledgements(t *testing.T) {
	c := newCluster(t, 2, redis.Config{}, redis.Config{}, ms)
	wait := func(req uint64, n int64, timeout time.Duration) proto.Msg {
		return proto.Msg{Kind: proto.Wait, Req: req, Int: n, TTL: timeout}
	}
	c.c1.Send(time.Second, "n1", setNX(1, 111, time.Minute))
	c.c1.Send(time.Second, "n1", wait(2, 2, time.Second))
	c.w.At(2*time.Second, func() { c.w.Crash(c.procs[2], false) })
	c.c1.Send(3*time.Second, "n1", proto.Msg{Kind: proto.Incr, Req: 3, Key: "x"})
	c.c1.Send(3*time.Second, "n1", wait(4, 2, 500*ms))
	c.c1.Send(5*time.Second, "n1", proto.Msg{Kind: proto.Incr, Req: 5, Key: "x"})
	c.c1.Send(5*time.Second, "n1", wait(6, 1, 500*ms))
	c.c1.Send(6*time.Second, "n2", wait(7, 1, 500*ms))
	c.w.Run(10 * time.Second)

	// SET served at 1.0011s, shipped, applied at 1.0021s, acked at 1.0031s;
	// the WAIT's answer reaches c1 1ms later.
	r := c.c1.Reply(2)
	require.Equal(t, int64(2), r.Int)
	require.Equal(t, time.Second+4*ms+st, r.At, "answered when the second ack arrived")
	// One replica down: WAIT 2 times out with 1. It ran at 3.001s+2·st.
	r = c.c1.Reply(4)
	require.Equal(t, int64(1), r.Int)
	require.Equal(t, 3*time.Second+ms+2*st+500*ms+ms, r.At, "answered at the timeout")
	r = c.c1.Reply(6)
	require.Equal(t, int64(1), r.Int)
	require.Less(t, r.At, 5*time.Second+10*ms, "WAIT 1 does not wait for the timeout")
	require.Equal(t, proto.ReadOnly, c.c1.Reply(7).Err, "WAIT on a replica")
}

// min-replicas-to-write 1, min-replicas-max-lag 10s: the master refuses
// writes once no replica acknowledged for more than 10s.
func TestMinReplicasToWrite(t *testing.T) {
	c := newCluster(t, 1, redis.Config{MinReplicasToWrite: 1}, redis.Config{}, 0)
	// The replica's last acknowledgement before its crash at 2.5s is at 2s.
	c.w.At(2500*ms, func() { c.w.Crash(c.procs[1], false) })
	c.c1.Send(time.Second, "n1", setNX(1, 1, time.Minute))
	c.c1.Send(12*time.Second-st, "n1", proto.Msg{Kind: proto.Incr, Req: 2, Key: "x"})
	c.c1.Send(12*time.Second-st+time.Nanosecond, "n1", proto.Msg{Kind: proto.Incr, Req: 3, Key: "x"})
	c.c1.Send(13*time.Second, "n1", get(4, key))
	c.w.Run(14 * time.Second)
	require.True(t, c.c1.Reply(1).OK)
	require.Equal(t, proto.OK, c.c1.Reply(2).Err, "lag exactly 10s is still good")
	require.Equal(t, int64(1), c.c1.Reply(2).Int)
	r := c.c1.Reply(3)
	require.Equal(t, proto.NoReplicas, r.Err, "lag over 10s")
	require.False(t, r.OK)
	require.True(t, c.c1.Reply(4).OK, "reads are still served")

	// A master with the option on and no replica at all refuses at once.
	c2 := newCluster(t, 0, redis.Config{MinReplicasToWrite: 1}, redis.Config{}, 0)
	c2.c1.Send(time.Second, "n1", setNX(1, 1, time.Minute))
	c2.w.Run(2 * time.Second)
	require.Equal(t, proto.NoReplicas, c2.c1.Reply(1).Err)
}

// A write lost on the way (a cut link) leaves a gap in the offsets; the
// replica notices at the next write and full-syncs.
func TestReplicaResyncsAfterAGap(t *testing.T) {
	c := newCluster(t, 1, redis.Config{}, redis.Config{}, 0)
	n1, n2 := c.procs[0].Self(), c.procs[1].Self()
	c.w.At(time.Second, func() { c.w.Net().Apply(network.Cut([]network.Endpoint{n1}, []network.Endpoint{n2})) })
	c.c1.Send(time.Second, "n1", setNX(1, 111, time.Minute))
	c.w.At(2*time.Second, func() { c.w.Net().Heal() })
	c.c1.Send(3*time.Second, "n1", proto.Msg{Kind: proto.Incr, Req: 2, Key: "x"})
	c.w.Run(3*time.Second + st)
	v, _, ok := c.nodes[1].Value(key, 3*time.Second+st)
	require.True(t, ok, "the lost write arrived with the full sync")
	require.Equal(t, uint64(111), v)
	x, _, ok := c.nodes[1].Value("x", 3*time.Second+st)
	require.True(t, ok)
	require.Equal(t, uint64(1), x)
	require.Equal(t, c.nodes[0].Offset(), c.nodes[1].Offset())
}

// A master that restarts forgets its replicas; their periodic
// acknowledgement makes it full-sync them, so they follow its new writes.
func TestReplicasFollowARestartedMaster(t *testing.T) {
	c := newCluster(t, 1, redis.Config{Persistence: redis.AOFAlways}, redis.Config{}, 0)
	c.c1.Send(500*ms, "n1", setNX(1, 111, time.Minute))
	c.w.At(1500*ms, func() { c.w.Crash(c.procs[0], false) })
	c.w.At(1600*ms, func() { c.w.Restart(c.procs[0]) })
	c.c1.Send(1700*ms, "n1", proto.Msg{Kind: proto.CompareDel, Req: 2, Key: key, Value: 111})
	c.c1.Send(1700*ms, "n1", setNX(3, 222, time.Minute))
	c.w.Run(4 * time.Second)
	require.True(t, c.c1.Reply(3).OK)
	v, _, ok := c.nodes[1].Value(key, 4*time.Second)
	require.True(t, ok)
	require.Equal(t, uint64(222), v)
}

// Two masters after a failover the old master never heard of (Jepsen's
// Sentinel test): the old one keeps acknowledging writes, and a replica
// that now follows the new master ignores the old master's stream.
func TestReplicaIgnoresItsFormerMaster(t *testing.T) {
	c := newCluster(t, 2, redis.Config{}, redis.Config{}, 0)
	c.replicaOf(time.Second, "n2", -1)
	c.replicaOf(time.Second, "n3", int64(c.procs[1].Self()))
	c.c1.Send(2*time.Second, "n1", setNX(1, 111, time.Minute))
	c.w.Run(3 * time.Second)
	require.True(t, c.c1.Reply(1).OK, "the old master still acknowledges")
	require.Equal(t, redis.Master, c.nodes[0].Role())
	for _, i := range []int{1, 2} {
		_, _, ok := c.nodes[i].Value(key, 3*time.Second)
		require.False(t, ok, "n%d took a write from the old master", i+1)
	}
}

// A demoted master answers its blocked WAITs, full-syncs from the new
// master and ends with exactly its data.
func TestDemotedMasterTakesTheNewMastersData(t *testing.T) {
	c := newCluster(t, 1, redis.Config{ReplicationDelay: time.Second, Persistence: redis.AOFAlways}, redis.Config{}, 0)
	c.c1.Send(500*ms, "n1", setNX(1, 111, time.Minute)) // never reaches n2
	c.c1.Send(500*ms, "n1", proto.Msg{Kind: proto.Incr, Req: 4, Key: "a"})
	c.c1.Send(500*ms, "n1", proto.Msg{Kind: proto.Wait, Req: 2, Int: 1})
	c.replicaOf(600*ms, "n2", -1)
	c.c2.Send(700*ms, "n2", setNX(3, 222, time.Minute))
	c.replicaOf(800*ms, "n1", int64(c.procs[1].Self()))
	c.w.Run(2 * time.Second)
	require.Equal(t, int64(0), c.c1.Reply(2).Int, "the blocked WAIT is answered at the demotion")
	require.Equal(t, 800*ms, c.c1.Reply(2).At)
	require.True(t, c.c1.Reply(4).OK)
	require.Equal(t, redis.Replica, c.nodes[0].Role())
	m, ok := c.nodes[0].MasterOf()
	require.True(t, ok)
	require.Equal(t, c.procs[1].Self(), m)
	v, _, ok := c.nodes[0].Value(key, 2*time.Second)
	require.True(t, ok)
	require.Equal(t, uint64(222), v, "n1 holds n2's value")
	_, _, ok = c.nodes[0].Value("a", 2*time.Second)
	require.False(t, ok, "n1 dropped the key n2 does not have")
	replaced := false
	for _, o := range c.w.Observed("n1", proto.KeyGone) {
		if o.Lock == 111 && o.At == 800*ms {
			replaced = true
		}
	}
	require.True(t, replaced, "n1 observes its own lock value go at the sync")
	_, _, ok = c.nodes[1].Value(key, 2*time.Second)
	require.True(t, ok)
	require.Equal(t, c.nodes[1].Offset(), c.nodes[0].Offset())
}

// Two runs of the same world produce the same trace, byte for byte.
func TestDeterministicTrace(t *testing.T) {
	trace := func() []string {
		c := newCluster(t, 2, redis.Config{ReplicationDelay: 3 * ms, Persistence: redis.AOFEverySec}, redis.Config{}, 0)
		c.w.Net().SetDefaultLatency(network.Uniform(ms, 5*ms))
		for i := range 50 {
			at := time.Duration(i) * 97 * ms
			c.c1.Send(at, "n1", setNX(uint64(2*i), uint64(i), 300*ms))
			c.c2.Send(at+ms, "n1", proto.Msg{Kind: proto.CompareDel, Req: uint64(2*i + 1), Key: key, Value: uint64(i)})
		}
		c.w.At(2*time.Second, func() { c.w.Crash(c.procs[0], true) })
		c.w.At(2500*ms, func() { c.w.Restart(c.procs[0]) })
		c.w.Run(6 * time.Second)
		return c.w.TraceLines()
	}
	a, b := trace(), trace()
	require.NotEmpty(t, a)
	require.Equal(t, a, b)
}
