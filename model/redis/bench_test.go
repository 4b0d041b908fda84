package redis_test

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
)

// BenchmarkLockRound is one acquire-and-release round on a node: SET NX PX
// (arms an expiry timer) and the compare-and-delete script (cancels it),
// each through the command queue, over the kernel and network.
func BenchmarkLockRound(b *testing.B) {
	for _, p := range []redis.Persistence{redis.None, redis.AOFAlways} {
		b.Run(p.String(), func(b *testing.B) {
			w := newWorld(b, false)
			w.add("n1", redis.New(redis.Config{Persistence: p}), clocks.Spec{})
			c := w.addProbe("c1")
			w.start()
			n1, _ := w.net.Lookup("n1")
			set := proto.Msg{Kind: proto.SetNX, Key: key, TTL: 10 * time.Second}
			del := proto.Msg{Kind: proto.CompareDel, Key: key}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				set.Req, set.Value = uint64(2*i), uint64(i)
				del.Req, del.Value = uint64(2*i+1), uint64(i)
				c.p.Send(n1, set)
				w.k.RunUntil(w.k.Now() + time.Millisecond)
				c.p.Send(n1, del)
				w.k.RunUntil(w.k.Now() + time.Millisecond)
				if !c.got[0].m.OK || c.got[1].m.Int != 1 {
					b.Fatalf("round %d: got %+v", i, c.got)
				}
				c.got = c.got[:0]
				w.obs = w.obs[:0]
			}
			if w.k.Pending() != 0 || len(w.slotOf) != 0 {
				b.Fatalf("leak: %d events pending, %d timers mapped", w.k.Pending(), len(w.slotOf))
			}
		})
	}
}
