package redis_test

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
)

// BenchmarkLockRound is one acquire-and-release round on a node: SET NX PX
// (arms an expiry timer) and the compare-and-delete script (cancels it),
// each through the command queue, over the kernel and network.
func BenchmarkLockRound(b *testing.B) {
	for _, p := range []redis.Persistence{redis.None, redis.AOFAlways} {
		b.Run(p.String(), func(b *testing.B) {
			w, node, c := actortest.Single(b, false, "n1", redis.New(redis.Config{Persistence: p}))
			n1 := node.Self()
			set := proto.Msg{Kind: proto.SetNX, Key: key, TTL: 10 * time.Second}
			del := proto.Msg{Kind: proto.CompareDel, Key: key}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				set.Req, set.Value = uint64(2*i), uint64(i)
				del.Req, del.Value = uint64(2*i+1), uint64(i)
				c.Proc().Send(n1, set)
				w.Kernel().RunUntil(w.Kernel().Now() + time.Millisecond)
				c.Proc().Send(n1, del)
				w.Kernel().RunUntil(w.Kernel().Now() + time.Millisecond)
				if got := c.Received(); !got[0].OK || got[1].Int != 1 {
					b.Fatalf("round %d: got %+v", i, got)
				}
				c.Forget()
				w.ForgetObservations()
			}
			if w.Kernel().Pending() != 0 || w.Timers() != 0 {
				b.Fatalf("leak: %d events pending, %d timers live", w.Kernel().Pending(), w.Timers())
			}
		})
	}
}
