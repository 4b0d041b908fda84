package harness

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/lazyfs"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
)

// TestAOFLossWindowMatchesTheModel checks the simulator's AOF everysec
// loss window against real redis-server on lazyfs: the key is lost if the
// power fails before the node's next fsync, about one period after the
// SET. Each run is aof-everysec-power-loss (scaled as a real run is) with
// the power loss drawn uniformly over the part of c1's key's life in which
// a second client can still overlap c1's hold (50 ms to 1.5 s, the
// critical section ending at 1.86 s), and c2 starting once n3 is back.
// Both the simulator and the real run judge each draw; the real fraction
// of runs that lost the key (a mutual-exclusion violation) must lie in the
// simulator's 95% Wilson interval over the same draws.
//
// It takes about 3.5 s per run, so it runs only when asked:
//
//	REDLOCKSIM_WINDOW_RUNS=20 go test -run TestAOFLossWindowMatchesTheModel -v ./cmd/internal/real/harness/
func TestAOFLossWindowMatchesTheModel(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("REDLOCKSIM_WINDOW_RUNS"))
	if runs <= 0 {
		t.Skip("set REDLOCKSIM_WINDOW_RUNS (at least 20 for the measurement) to run it")
	}
	needRedis(t)
	if err := lazyfs.Available(); err != nil {
		t.Skip(err)
	}
	sc := load(t, "aof-everysec-power-loss")
	base := Scale(sc.Config, DefaultScale(&sc.Config))
	loss := -1
	for i, f := range base.Faults {
		if f.Kind == model.PowerLoss {
			loss = i
		}
	}
	require.GreaterOrEqual(t, loss, 0)
	base.Duration = 2600 * time.Millisecond // c1 releases at 1.86 s; c2's hold after
	draws := rand.New(rand.NewPCG(19, 2026))
	var simLost, realLost int
	for i := range runs {
		cfg := base
		cfg.Faults = append([]model.Fault(nil), base.Faults...)
		cfg.Clients = append([]model.ClientConfig(nil), base.Clients...)
		at := 50*time.Millisecond + time.Duration(draws.Int64N(int64(1450*time.Millisecond)))
		cfg.Faults[loss].At = at
		for j := range cfg.Clients {
			if cfg.Clients[j].Name == "c2" {
				cfg.Clients[j].StartIn = at + cfg.Faults[loss].For + 50*time.Millisecond
			}
		}
		sim, err := model.Run(cfg, uint64(i+1))
		require.NoError(t, err)
		simMutex, _ := sim.Report.Safe()

		g := proc.NewGroup()
		res, err := Run(context.Background(), cfg, Options{Scale: 1, Seed: uint64(i + 1), Client: []string{clientBinary, "real-client"}, Group: g})
		require.NoError(t, g.Close())
		require.NoError(t, err)
		realMutex, _ := res.Report.Safe()
		if !simMutex {
			simLost++
		}
		if !realMutex {
			realLost++
		}
		t.Logf("run %2d: power lost at %v: simulator %s, real %s", i+1, at.Round(time.Millisecond), lostOrKept(simMutex), lostOrKept(realMutex))
	}
	lo, hi := sweeprun.Wilson(simLost, runs)
	frac := float64(realLost) / float64(runs)
	t.Logf("key lost: simulator %d of %d [%.2f, %.2f], real %d of %d (%.2f)", simLost, runs, lo, hi, realLost, runs, frac)
	if frac < lo || frac > hi {
		t.Errorf("the real fraction of lost keys %.2f lies outside the simulator's 95%% interval [%.2f, %.2f]", frac, lo, hi)
	}
}

func lostOrKept(mutexSafe bool) string {
	if mutexSafe {
		return "kept the key"
	}
	return "lost the key"
}
