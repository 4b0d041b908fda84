package sentinel_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/sentinel"
	"github.com/redlocksim/redlocksim/network"
)

const ms = time.Millisecond

type deployment struct {
	w      *actortest.World
	nodes  []*redis.Node
	procs  []*actortest.Proc
	c1, c2 *actortest.Probe
	s      *sentinel.Sentinel
	sp     *actortest.Proc
}

// deploy builds master n1 with replicas n2, n3, clients c1 and c2, and a
// sentinel with the defaults (down after 30s, ping every 1s).
func deploy(t *testing.T, master redis.Config) *deployment {
	return deployWith(t, master, 0, nil)
}

// deployWith is deploy with the sentinel's DownAfter (0: default) and the
// directed links in cut cut before the start.
func deployWith(t *testing.T, master redis.Config, downAfter time.Duration, cut [][2]string) *deployment {
	d := &deployment{w: actortest.New(t, 1, true)}
	for i, name := range []string{"n1", "n2", "n3"} {
		cfg := master
		if i > 0 {
			cfg = redis.Config{ReplicaOf: "n1"}
		}
		n := redis.New(cfg)
		d.nodes = append(d.nodes, n)
		d.procs = append(d.procs, d.w.Add(name, n, clocks.Spec{}))
	}
	d.c1, d.c2 = d.w.AddProbe("c1"), d.w.AddProbe("c2")
	cfg := sentinel.Config{Master: "n1", Replicas: []string{"n2", "n3"}, Clients: []string{"c1", "c2"}}
	cfg.DownAfter = downAfter
	d.s = sentinel.New(cfg)
	d.sp = d.w.Add("sentinel", d.s, clocks.Spec{})
	for _, c := range cut {
		a, _ := d.w.Net().Lookup(c[0])
		b, _ := d.w.Net().Lookup(c[1])
		d.w.Net().Apply(network.Cut([]network.Endpoint{a}, []network.Endpoint{b}))
	}
	d.w.Start()
	return d
}

func (d *deployment) ep(i int) int64 { return int64(d.procs[i].Self()) }

func masterChanged(p *actortest.Probe) []actortest.Received {
	var out []actortest.Received
	for _, g := range p.Received() {
		if g.Kind == proto.MasterChanged {
			out = append(out, g)
		}
	}
	return out
}

func (d *deployment) trace() string {
	return strings.Join(d.w.TraceLines(), "\n")
}

// §2: down-after-milliseconds 30000, counted as Sentinel counts it: from
// the oldest unanswered ping (act_ping_time), not from the last answer.
// The master answers the ping at 4s and crashes at 4.5s; the ping at 5s is
// the first it leaves unanswered, so it is down at exactly 35s (not 34s),
// and the first live replica in configuration order is told to become
// master. The clients and the other replica hear of it only at 36s, when
// the sentinel's INFO a second later shows the promoted node a master.
func TestPromotesAfterDownAfterAndNotBefore(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadN2   bool
		promoted int
	}{
		{"first replica", false, 1},
		{"first replica down: the next", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := deploy(t, redis.Config{})
			d.w.At(4500*ms, func() { d.w.Crash(d.procs[0], false) })
			if tc.deadN2 {
				d.w.At(ms, func() { d.w.Crash(d.procs[1], false) })
			}
			down, switched := 35*time.Second, 36*time.Second

			d.w.Run(down - time.Nanosecond)
			require.Equal(t, "n1", d.s.Master())
			require.Equal(t, redis.Replica, d.nodes[tc.promoted].Role(), "promoted before DownAfter")
			require.Empty(t, masterChanged(d.c1))

			d.w.Run(switched - time.Nanosecond)
			require.Equal(t, d.procs[tc.promoted].Name(), d.s.Master())
			require.Equal(t, redis.Master, d.nodes[tc.promoted].Role())
			require.Empty(t, masterChanged(d.c1), "the clients are told before an INFO showed the promotion")
			if !tc.deadN2 {
				m, _ := d.nodes[2].MasterOf()
				require.Equal(t, d.procs[0].Self(), m, "n3 is repointed before the promotion is seen")
			}

			d.w.Run(switched)
			for _, c := range []*actortest.Probe{d.c1, d.c2} {
				mc := masterChanged(c)
				require.Len(t, mc, 1)
				require.Equal(t, switched, mc[0].At)
				require.Equal(t, d.ep(tc.promoted), mc[0].Int)
			}
			if !tc.deadN2 {
				m, ok := d.nodes[2].MasterOf()
				require.True(t, ok)
				require.Equal(t, d.procs[1].Self(), m, "n3 follows the new master")
			}
			name := d.procs[tc.promoted].Name()
			require.Contains(t, d.trace(), "sentinel master-down master=n1 down_after=30s promoting="+name)
			require.Contains(t, d.trace(), "sentinel switch-master master="+name)
		})
	}
}

// A master that stops answering while its link stays up (cut, as a pause
// or a partition would) is counted the same way: down DownAfter after the
// first ping it left unanswered.
func TestDownAfterCountsFromTheFirstUnansweredPing(t *testing.T) {
	d := deployWith(t, redis.Config{}, 2500*ms, nil)
	n1, s := d.procs[0].Self(), d.sp.Self()
	d.w.At(2200*ms, func() { d.w.Net().Apply(network.Cut([]network.Endpoint{n1}, []network.Endpoint{s})) })
	d.w.Run(5500*ms - time.Nanosecond)
	require.Equal(t, "n1", d.s.Master(), "the pong at 2s answered; the ping at 3s did not")
	d.w.Run(5500 * ms)
	require.Equal(t, "n2", d.s.Master())
}

// The switch reconfigures the other replicas, without waiting for their
// next Pong (down at 3.5s, switch at 4.5s, next ping at 5s).
func TestSwitchReconfiguresReplicasAtOnce(t *testing.T) {
	d := deployWith(t, redis.Config{}, 2500*ms, nil)
	d.w.At(500*ms, func() { d.w.Crash(d.procs[0], false) })
	d.w.Run(4500 * ms)
	require.Equal(t, "n2", d.s.Master())
	m, _ := d.nodes[2].MasterOf()
	require.Equal(t, d.procs[1].Self(), m)
}

// Until an INFO shows the promoted replica a master, the clients are not
// told: with its answers cut from 3.6s to 6.2s, the answer to the INFO at
// 4.5s is held, and the switch comes when it arrives at the heal.
func TestSwitchWaitsForTheInfo(t *testing.T) {
	d := deployWith(t, redis.Config{}, 2500*ms, nil)
	n2, s := d.procs[1].Self(), d.sp.Self()
	d.w.At(500*ms, func() { d.w.Crash(d.procs[0], false) })
	d.w.At(3600*ms, func() { d.w.Net().Apply(network.Cut([]network.Endpoint{n2}, []network.Endpoint{s})) })
	d.w.At(6200*ms, func() { d.w.Net().Heal() })
	d.w.Run(6200*ms - time.Nanosecond)
	require.Equal(t, redis.Master, d.nodes[1].Role())
	require.Empty(t, masterChanged(d.c1))
	d.w.Run(6300 * ms)
	mc := masterChanged(d.c1)
	require.Len(t, mc, 1)
	require.Equal(t, 6200*ms, mc[0].At)
}

// A master silent for less than DownAfter (pongs cut from 0.5s to 28.5s:
// 29s of silence) is not failed over.
func TestNoFailoverForAShorterSilence(t *testing.T) {
	d := deploy(t, redis.Config{})
	n1, s := d.procs[0].Self(), d.sp.Self()
	d.w.At(500*ms, func() { d.w.Net().Apply(network.Cut([]network.Endpoint{n1}, []network.Endpoint{s})) })
	d.w.At(28500*ms, func() { d.w.Net().Heal() })
	d.w.Run(100 * time.Second)
	require.Equal(t, "n1", d.s.Master())
	require.Equal(t, redis.Master, d.nodes[0].Role())
	require.Equal(t, redis.Replica, d.nodes[1].Role())
	require.Empty(t, masterChanged(d.c1))
}

// The old master comes back with the lock value it accepted alone (AOF
// always, never shipped), serves it as a master until the sentinel's next
// ping, then becomes a replica of the new master and takes its data.
func TestOldMasterRejoinsAsReplica(t *testing.T) {
	d := deploy(t, redis.Config{Persistence: redis.AOFAlways, ReplicationDelay: time.Second})
	d.c1.Send(time.Second, "n1", proto.Msg{Kind: proto.SetNX, Req: 1, Key: "lock", Value: 111, TTL: time.Minute})
	d.w.At(1500*ms, func() { d.w.Crash(d.procs[0], false) })
	d.c2.Send(32*time.Second, "n2", proto.Msg{Kind: proto.SetNX, Req: 2, Key: "lock", Value: 222, TTL: time.Minute})
	d.w.At(40500*ms, func() { d.w.Restart(d.procs[0]) })

	d.w.Run(40700 * ms)
	require.True(t, d.c1.Reply(1).OK)
	require.True(t, d.c2.Reply(2).OK, "B locks on the promoted n2: both hold the lock")
	require.Equal(t, "n2", d.s.Master())
	require.Equal(t, redis.Master, d.nodes[0].Role(), "n1 restarts as a master (its redis.conf)")
	v, _, ok := d.nodes[0].Value("lock", 40700*ms)
	require.True(t, ok)
	require.Equal(t, uint64(111), v, "n1 reloaded its own value")

	d.w.Run(41 * time.Second) // the next ping
	require.Equal(t, redis.Replica, d.nodes[0].Role())
	m, _ := d.nodes[0].MasterOf()
	require.Equal(t, d.procs[1].Self(), m)
	v, _, ok = d.nodes[0].Value("lock", 41*time.Second)
	require.True(t, ok)
	require.Equal(t, uint64(222), v, "n1 took the new master's data")
	require.Contains(t, d.trace(), "sentinel replicaof node=n1 master=n2")
	require.Equal(t, d.nodes[1].Offset(), d.nodes[0].Offset())
}

// A replica that missed its REPLICAOF (cut from the sentinel during the
// failover) is reconfigured when it answers again.
func TestLostReplicaOfIsRepeated(t *testing.T) {
	d := deploy(t, redis.Config{})
	n3, s := d.procs[2].Self(), d.sp.Self()
	d.w.At(4500*ms, func() { d.w.Crash(d.procs[0], false) })
	d.w.At(30*time.Second, func() {
		d.w.Net().Apply(network.Cut([]network.Endpoint{s}, []network.Endpoint{n3}))
	})
	d.w.At(40500*ms, func() { d.w.Net().Heal() })
	d.w.Run(40 * time.Second)
	m, _ := d.nodes[2].MasterOf()
	require.Equal(t, d.procs[0].Self(), m, "n3 still follows the dead n1")
	d.w.Run(42 * time.Second)
	m, _ = d.nodes[2].MasterOf()
	require.Equal(t, d.procs[1].Self(), m, "n3 follows n2 after the next ping")
}

// With no replica that answered recently, nobody is promoted; the sentinel
// keeps checking and promotes a replica once one answers.
func TestNoCandidateWaitsForAReplica(t *testing.T) {
	d := deploy(t, redis.Config{})
	d.w.At(500*ms, func() { d.w.Crash(d.procs[1], false); d.w.Crash(d.procs[2], false) })
	d.w.At(4500*ms, func() { d.w.Crash(d.procs[0], false) })
	d.w.At(50500*ms, func() { d.w.Restart(d.procs[2]) })
	d.w.Run(50 * time.Second)
	require.Equal(t, "n1", d.s.Master())
	require.Empty(t, masterChanged(d.c1))
	d.w.Run(53 * time.Second)
	require.Equal(t, "n3", d.s.Master())
	require.Equal(t, redis.Master, d.nodes[2].Role())
	require.Equal(t, redis.Replica, d.nodes[1].Role(), "n2 is down and untouched")
}

// A replica that never answered is no candidate, even within the first
// ReplicaValidity ping periods, where its silence is still short.
func TestNeverAnsweredReplicaIsNoCandidate(t *testing.T) {
	d := deployWith(t, redis.Config{}, 3*time.Second, [][2]string{{"n2", "sentinel"}})
	d.w.At(500*ms, func() { d.w.Crash(d.procs[0], false) })
	d.w.Run(4 * time.Second)
	require.Equal(t, "n3", d.s.Master(), "down at 4s; n2 never answered")
	require.Equal(t, redis.Master, d.nodes[2].Role())
}

// The new master is watched like the old one: silent for DownAfter, it is
// failed over in turn (here back to n1, which rejoined as a replica).
func TestNewMasterIsWatchedInTurn(t *testing.T) {
	d := deploy(t, redis.Config{})
	d.w.At(4500*ms, func() { d.w.Crash(d.procs[0], false) })
	d.w.At(37*time.Second, func() { d.w.Restart(d.procs[0]) })
	d.w.At(40500*ms, func() { d.w.Crash(d.procs[1], false) })
	d.w.Run(71*time.Second - time.Nanosecond)
	require.Equal(t, "n2", d.s.Master(), "n2 answered the ping at 40s, not the one at 41s")
	d.w.Run(71 * time.Second)
	require.Equal(t, "n1", d.s.Master(), "n1 comes first in configuration order")
	require.Equal(t, redis.Master, d.nodes[0].Role())
	d.w.Run(72 * time.Second)
	m, _ := d.nodes[2].MasterOf()
	require.Equal(t, d.procs[0].Self(), m)
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, sentinel.Config{Master: "n1"}.Validate())
	err := sentinel.Config{Replicas: []string{"n2", "n2", ""}, DownAfter: -1, PingEvery: -1}.Validate()
	require.Error(t, err)
	for _, want := range []string{"master", "replicas[1]", "replicas[2]", "down_after", "ping_every"} {
		require.Contains(t, err.Error(), want)
	}
	require.Panics(t, func() { sentinel.New(sentinel.Config{}) })
	c := sentinel.Config{Master: "n1"}.WithDefaults()
	require.Equal(t, 30*time.Second, c.DownAfter)
	require.Equal(t, time.Second, c.PingEvery)
}
