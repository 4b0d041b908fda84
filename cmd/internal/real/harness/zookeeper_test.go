package harness

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
	"github.com/redlocksim/redlocksim/cmd/internal/real/zookeeper"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
)

// pausedHold is the hold client was paused in on acquisition (its id,
// 0 if none) and when the pause began.
func pausedHold(res *Result, client string) (hold int, stopped time.Duration) {
	stopped = -1
	for _, e := range res.History.Log {
		if e.Actor == client && e.Kind == story.Pauses {
			stopped = e.At
			break
		}
	}
	if stopped < 0 {
		return 0, stopped
	}
	for _, h := range res.History.Holds {
		if h.Client == client && h.Start <= stopped {
			hold = h.ID
		}
	}
	return hold, stopped
}

func needZooKeeper(t *testing.T) {
	t.Helper()
	if _, _, err := zookeeper.Find(); err != nil {
		proctest.Unavailable(t, err)
	}
}

// Kleppmann's answer for real: Curator's recipe on a real 3-server
// ZooKeeper 3.8 ensemble, the holder frozen (SIGSTOP) past its session
// timeout. The ensemble expires its session and deletes its node, the next
// waiter holds, and the frozen holder wakes believing and writes: two
// holders at once, and a lost update. With the resource checking the
// node's czxid, the same run loses nothing. Each run starts its own
// ensemble (about 4 s of JVM start-up).
func TestRealZooKeeperSessions(t *testing.T) {
	needZooKeeper(t)
	for _, name := range []string{"zookeeper-session-pause", "zookeeper-session-fencing"} {
		t.Run(name, func(t *testing.T) {
			sc, res := runReal(t, name, 0)
			requireContract(t, sc, res)
			// The holder stops itself where the model pauses it: with
			// its read of the resource answered (AcquireStop), so it
			// wakes with the read in hand and writes. Stopped by the
			// harness on its acquisition record, it had the read's
			// reply and deadline both due at the wake in some runs,
			// and gave its write up when Go let the deadline win
			// (docs/results/reality.md).
			holder := sc.Config.Faults[0].Target
			hold, stopped := pausedHold(res, holder)
			require.NotZero(t, hold, "%s was paused in a hold", holder)
			var read, wrote bool
			for _, x := range res.History.Reads {
				read = read || x.Client == holder && x.HoldID == hold && x.At < stopped
			}
			for _, w := range res.History.Writes {
				wrote = wrote || w.Client == holder && w.HoldID == hold && w.At > stopped
			}
			assert.True(t, read, "%s's read under hold %d reached the resource before its stop at %v", holder, hold, stopped)
			assert.True(t, wrote, "%s wrote under hold %d after its stop at %v", holder, hold, stopped)
			assert.Contains(t, strings.Join(res.Notes, "\n"), holder+"'s pause on acquisition: SIGSTOP")
			assert.Contains(t, res.Clients, "Curator's InterProcessMutex")
			// Every hold carries its node's czxid, distinct, and a later
			// hold a higher one, except one reported late by a client that
			// was frozen with the answer in flight: the holds of the
			// frozen client are the only ones out of order.
			holds := slices.Clone(res.History.Holds)
			require.NotEmpty(t, holds)
			slices.SortFunc(holds, func(a, b check.Hold) int { return cmp.Compare(a.Start, b.Start) })
			seen := map[uint64]bool{}
			var top uint64
			for _, h := range holds {
				require.NotZero(t, h.Token, "hold %d of %s has no czxid", h.ID, h.Client)
				assert.False(t, seen[h.Token], "two holds carry czxid %d", h.Token)
				seen[h.Token] = true
				if h.Token < top {
					assert.Equal(t, sc.Config.Faults[0].Target, h.Client, "hold %d of %s: czxid %d below %d", h.ID, h.Client, h.Token, top)
				}
				top = max(top, h.Token)
			}
		})
	}
}

// A ZooKeeper scenario's refusals speak of ZooKeeper's servers, never of
// etcd's: the store's clock, an election and a cut to the store.
func TestZooKeeperRefusalsNameZooKeeper(t *testing.T) {
	cfg := load(t, "zookeeper-session-pause").Config
	cfg.Store.Clock.RatePPM = 1000
	cfg.Faults = append(cfg.Faults,
		model.Fault{Kind: model.Election, At: time.Second, For: time.Second},
		model.Fault{Kind: model.ClockStep, At: time.Second, Target: "store", By: time.Second},
		model.Fault{Kind: model.Cut, At: time.Second, Target: "c1", To: "store"})
	refused, _ := Refusals(&cfg)
	var whats []string
	for _, r := range refused {
		whats = append(whats, r.What)
		assert.NotContains(t, r.Error(), "etcd", "%s", r.What)
		assert.Contains(t, r.Error(), "ZooKeeper", "%s", r.What)
	}
	assert.ElementsMatch(t, []string{"store.clock", "election fault", "clock-step fault on store", "cut fault with the zookeeper lock"}, whats)
}
