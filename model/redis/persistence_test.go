package redis_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
)

// §3 Persistence: "with none, a node that restarts at once forgets the
// key"; "AOF everysec can lose up to ~1 s of writes on power loss";
// "always fsyncs before replying"; a process crash keeps what reached the
// OS. Key a is written at 0.5s (before the 1s fsync), b at 1.5s (after it);
// the node goes down at 1.6s and restarts at 1.7s.
func TestPersistenceAcrossCrashes(t *testing.T) {
	for _, tc := range []struct {
		p            redis.Persistence
		powerLoss    bool
		keepA, keepB bool
	}{
		{redis.None, false, false, false},
		{redis.None, true, false, false},
		{redis.AOFEverySec, false, true, true},
		{redis.AOFEverySec, true, true, false},
		{redis.AOFAlways, false, true, true},
		{redis.AOFAlways, true, true, true},
	} {
		t.Run(fmt.Sprintf("%v/powerloss=%v", tc.p, tc.powerLoss), func(t *testing.T) {
			w, n, p, c1, _ := single(t, redis.Config{Persistence: tc.p}, clocks.Spec{})
			w.Start()
			c1.Send(500*ms, "n1", proto.Msg{Kind: proto.SetNX, Req: 1, Key: "a", Value: 1})
			c1.Send(1500*ms, "n1", proto.Msg{Kind: proto.SetNX, Req: 2, Key: "b", Value: 2})
			w.At(1600*ms, func() { w.Crash(p, tc.powerLoss) })
			w.At(1700*ms, func() { w.Restart(p) })
			c1.Send(2*time.Second, "n1", get(3, "a"))
			c1.Send(2*time.Second, "n1", get(4, "b"))
			w.Run(3 * time.Second)
			require.True(t, c1.Reply(1).OK)
			require.True(t, c1.Reply(2).OK)
			require.Equal(t, tc.keepA, c1.Reply(3).OK, "key a (written before the fsync) after restart")
			require.Equal(t, tc.keepB, c1.Reply(4).OK, "key b (written after the fsync) after restart")
			_, _, okB := n.Value("b", 2*time.Second)
			require.Equal(t, tc.keepB, okB)

			// The restart narrates what it lost and what it reloaded.
			var lost, reloaded []uint64
			for _, o := range w.Observations() {
				if o.At != 1700*ms {
					continue
				}
				switch o.Kind {
				case proto.KeyGone:
					require.False(t, o.OK)
					lost = append(lost, o.Lock)
				case proto.KeySet:
					reloaded = append(reloaded, o.Lock)
				}
			}
			var wantLost, wantReloaded []uint64
			for _, k := range []struct {
				v    uint64
				kept bool
			}{{1, tc.keepA}, {2, tc.keepB}} {
				if k.kept {
					wantReloaded = append(wantReloaded, k.v)
				} else {
					wantLost = append(wantLost, k.v)
				}
			}
			require.Equal(t, wantLost, lost, "lost lock values observed at restart")
			require.Equal(t, wantReloaded, reloaded, "reloaded lock values observed at restart")
		})
	}
}

// A restart neither rewrites nor fsyncs the AOF (Redis 7.0 opens its last
// INCR file for appending and counts it as fsynced), so what a process
// crash kept only in the page cache is not durable yet: an everysec node
// that crashes after writing b (after the 1s fsync), restarts at 1.7s and
// loses power at 1.8s loses b, though it served b after the restart. With
// a write after the restart, the next fsync tick (2.7s, one FsyncEvery
// after the restart) covers the whole file, b included, and a power loss
// after it keeps b.
func TestRestartDoesNotFsyncWhatTheCrashKept(t *testing.T) {
	for _, tc := range []struct {
		name        string
		write       bool          // a write after the restart, before the power loss
		powerLossAt time.Duration // of the restarted node
		keepB       bool
	}{
		{"power loss before any fsync", false, 1800 * ms, false},
		{"no write, so no fsync by 2.8s", false, 2800 * ms, false},
		{"a write, then the fsync at 2.7s", true, 2800 * ms, true},
		{"a write, power loss before the fsync", true, 2600 * ms, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _, p, c1, c2 := single(t, redis.Config{Persistence: redis.AOFEverySec}, clocks.Spec{})
			w.Start()
			c1.Send(500*ms, "n1", proto.Msg{Kind: proto.SetNX, Req: 1, Key: "a", Value: 1})
			c1.Send(1500*ms, "n1", proto.Msg{Kind: proto.SetNX, Req: 2, Key: "b", Value: 2})
			w.At(1600*ms, func() { w.Crash(p, false) })
			w.At(1700*ms, func() { w.Restart(p) })
			c2.Send(1750*ms, "n1", get(3, "b"))
			if tc.write {
				c1.Send(1760*ms, "n1", proto.Msg{Kind: proto.SetNX, Req: 4, Key: "c", Value: 3})
			}
			w.At(tc.powerLossAt, func() { w.Crash(p, true) })
			w.At(tc.powerLossAt+100*ms, func() { w.Restart(p) })
			c2.Send(tc.powerLossAt+200*ms, "n1", get(5, "a"))
			c2.Send(tc.powerLossAt+200*ms, "n1", get(6, "b"))
			w.Run(tc.powerLossAt + time.Second)
			require.True(t, c2.Reply(3).OK, "b is served after the process crash's restart")
			require.True(t, c2.Reply(5).OK, "a, fsynced at 1s, survives the power loss")
			require.Equal(t, tc.keepB, c2.Reply(6).OK, "b after the power loss")
		})
	}
}

// A release that was not fsynced is undone by a power loss: the deleted
// lock key comes back.
func TestPowerLossResurrectsUnsyncedDelete(t *testing.T) {
	w, _, p, c1, c2 := single(t, redis.Config{Persistence: redis.AOFEverySec}, clocks.Spec{})
	w.Start()
	c1.Send(500*ms, "n1", setNX(1, 111, time.Minute))
	c1.Send(1500*ms, "n1", proto.Msg{Kind: proto.CompareDel, Req: 2, Key: key, Value: 111})
	w.At(1600*ms, func() { w.Crash(p, true) })
	w.At(1700*ms, func() { w.Restart(p) })
	c2.Send(2*time.Second, "n1", setNX(3, 222, time.Minute))
	w.Run(3 * time.Second)
	require.Equal(t, int64(1), c1.Reply(2).Int, "released")
	require.False(t, c2.Reply(3).OK, "the released key is back after the power loss")
}

// A preloaded counter is an on-disk snapshot: without persistence the
// increments are lost and the counter goes back to its preloaded value.
func TestPreloadSurvivesWithoutPersistence(t *testing.T) {
	n := redis.New(redis.Config{})
	n.Preload("fence", 32)
	w, p, c := actortest.Single(t, true, "n1", n)
	c.Send(0, "n1", proto.Msg{Kind: proto.Incr, Req: 1, Key: "fence"})
	w.At(time.Second, func() { w.Crash(p, false) })
	w.At(time.Second, func() { w.Restart(p) })
	c.Send(2*time.Second, "n1", proto.Msg{Kind: proto.Incr, Req: 2, Key: "fence"})
	w.Run(3 * time.Second)
	require.Equal(t, int64(33), c.Reply(1).Int)
	require.Equal(t, int64(33), c.Reply(2).Int, "the fencing counter went back to 32 and issued 33 again")
}

// On restart, keys that expired by the node's wall clock while it was down
// are dropped (and observed as expired); the others expire on time.
func TestRestartDropsExpiredKeys(t *testing.T) {
	for _, tc := range []struct {
		name      string
		restartAt time.Duration
		present   bool
		goneAt    time.Duration
		sets      int // KeySet observations: the SET, and a reload if reloaded
	}{
		{"restart after the expiry", 2 * time.Second, false, 2 * time.Second, 1},
		{"restart before the expiry", 800 * ms, true, time.Second + st, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, n, p, c1, _ := single(t, redis.Config{Persistence: redis.AOFAlways}, clocks.Spec{})
			w.Start()
			c1.Send(0, "n1", setNX(1, 7, time.Second))
			w.At(500*ms, func() { w.Crash(p, true) })
			w.At(tc.restartAt, func() { w.Restart(p) })
			w.Run(tc.restartAt)
			_, _, ok := n.Value(key, tc.restartAt)
			require.Equal(t, tc.present, ok, "present right after the restart")
			w.Run(5 * time.Second)
			gone := w.Observed("n1", proto.KeyGone)
			require.Len(t, gone, 1)
			require.True(t, gone[0].OK, "observed as an expiry")
			require.Equal(t, tc.goneAt, gone[0].At)
			require.Len(t, w.Observed("n1", proto.KeySet), tc.sets, "an expired key is not reloaded")
		})
	}
}

// Timers and queued commands die with the process: a command queued at the
// crash is never answered, and nothing the old incarnation scheduled runs.
func TestCrashDropsQueuedCommands(t *testing.T) {
	w, n, p, c1, _ := single(t, redis.Config{ServiceTime: 100 * ms, Persistence: redis.AOFEverySec}, clocks.Spec{})
	w.Start()
	c1.Send(0, "n1", get(1, key))
	c1.Send(0, "n1", get(2, key))
	w.At(150*ms, func() { w.Crash(p, false) })
	w.At(160*ms, func() { w.Restart(p) })
	c1.Send(200*ms, "n1", get(3, key))
	w.Run(time.Second)
	require.True(t, c1.Replied(1))
	require.False(t, c1.Replied(2), "a command queued at the crash")
	require.Equal(t, 300*ms, c1.Reply(3).At, "served by the new incarnation only")
	require.Zero(t, n.Queued())
}
