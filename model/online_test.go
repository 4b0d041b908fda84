package model_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
)

// retainedWithin runs cfg fast and narrated on a few seeds and checks that
// the fast run keeps fewer than limit holds at its end, whatever its
// length, and that it still gives the narrated run's report.
func retainedWithin(t *testing.T, cfg model.Config, limit int) {
	t.Helper()
	for seed := uint64(1); seed <= 3; seed++ {
		fast, live, judged := model.RetainedHolds(cfg, seed)
		t.Logf("seed %d: %d holds, %d live in the world, %d kept by the judge", seed, fast.Report.AcquireSuccesses, live, judged)
		require.Greater(t, fast.Report.AcquireSuccesses, 50*limit, "seed %d: too few holds to tell", seed)
		require.Less(t, live, limit, "seed %d: holds the world still names", seed)
		require.Less(t, judged, limit, "seed %d: holds the judge keeps", seed)

		traced, err := model.RunTraced(cfg, seed)
		require.NoError(t, err)
		require.Equal(t, traced.Events, fast.Events, "seed %d: events", seed)
		require.Equal(t, traced.Net, fast.Net, "seed %d: messages", seed)
		verdict := traced.Report
		verdict.Violations = slices.Clone(verdict.Violations)
		for i := range verdict.Violations {
			verdict.Violations[i].Excerpt = nil // cut from the narration log
		}
		require.Equal(t, verdict, fast.Report, "seed %d: report", seed)
	}
}

// A read or write the network loses no longer keeps its hold, and with it
// every later hold, until the run's end: the world hears of the loss. The
// links to the resource are slow too, so that some requests arrive after
// their client gave up on them and began a new attempt: a hold forgotten
// too early would be missing from the report's stale writes.
func TestFastRunForgetsHoldsWhoseRequestsWereLost(t *testing.T) {
	t.Parallel()
	cfg := redlockWorld(3)
	cfg.Duration = 10 * time.Minute
	half := 0.5
	for _, c := range cfg.Clients {
		cfg.Network.Links = append(cfg.Network.Links, model.LinkConfig{
			From: c.Name, To: "resource", Loss: &half,
			Latency: network.Uniform(ms, 2*s), // Work.RequestTimeout is 1s
		})
	}
	retainedWithin(t, cfg, 10)
}

// The last hold of a client that has made all its attempts no longer pins
// the holds of a client that goes on long after: the client says it has
// finished.
func TestFastRunForgetsAFinishedClientsLastHold(t *testing.T) {
	t.Parallel()
	cfg := redlockWorld(2)
	cfg.Duration = 10 * time.Minute
	cfg.Work.Iterations = 1000
	client_(&cfg, "c2").StartIn = 5 * time.Minute // after c1 is done
	retainedWithin(t, cfg, 10)
}
