package model_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios"
)

// TestTimelineOfMatchesBuilder: the timeline drawn from the records alone
// is the one the world builds as it runs, span for span and mark for mark,
// in every library scenario and several seeds.
func TestTimelineOfMatchesBuilder(t *testing.T) {
	kinds := map[model.SpanKind]int{}
	marks := map[model.MarkKind]int{}
	for _, name := range scenarios.LibraryNames() {
		s, err := scenarios.LoadLibrary(name)
		require.NoError(t, err)
		for _, seed := range []uint64{s.Seed, 1, 2, 3} {
			r := s.Plan.RunTraced(seed)
			got := model.TimelineOf(r.Trace, r.End)
			require.Equal(t, r.Timeline.Spans, got.Spans, "%s seed %d spans", name, seed)
			require.Equal(t, r.Timeline.Marks, got.Marks, "%s seed %d marks", name, seed)
			for _, sp := range got.Spans {
				kinds[sp.Kind]++
			}
			for _, m := range got.Marks {
				marks[m.Kind]++
			}
		}
	}
	t.Logf("spans %v marks %v", kinds, marks)
}

// TestTimelineOfMatchesBuilderMoreFaults: the same, with the faults the
// library does not use added to each scenario (elections, overlapping
// ones, a paused store, slews, rate changes, crashes without restart,
// power loss, an isolate partition).
func TestTimelineOfMatchesBuilderMoreFaults(t *testing.T) {
	n := 0
	for _, name := range scenarios.LibraryNames() {
		s, err := scenarios.LoadLibrary(name)
		require.NoError(t, err)
		cfg := s.Config
		cl := cfg.Clients[0].Name
		cfg.Faults = append(slices.Clone(cfg.Faults),
			model.Fault{At: 2100 * time.Millisecond, Kind: model.ClockRate, Target: cl, PPM: -300.5},
			model.Fault{At: 2200 * time.Millisecond, Kind: model.ClockStep, Target: cl, By: -700 * time.Millisecond},
		)
		if len(cfg.Nodes) > 0 {
			node := cfg.Nodes[0].Name
			last := cfg.Nodes[len(cfg.Nodes)-1].Name
			cfg.Faults = append(cfg.Faults,
				model.Fault{At: 1100 * time.Millisecond, Kind: model.ClockSlew, Target: node, By: 2 * time.Second, MaxPPM: 500},
				model.Fault{At: 3300 * time.Millisecond, Kind: model.PowerLoss, Target: node, For: time.Second},
				model.Fault{At: 5500 * time.Millisecond, Kind: model.Crash, Target: last, NoRestart: true},
				model.Fault{At: 6 * time.Second, Kind: model.Partition, Partition: network.PartitionIsolate, Target: node},
				model.Fault{At: 6 * time.Second, Kind: model.Heal},
				model.Fault{At: 7 * time.Second, Kind: model.Crash, Target: node, For: 0},
				model.Fault{At: cfg.Duration - time.Second, Kind: model.Crash, Target: node, For: 5 * time.Second},
			)
		}
		if cfg.Lock.Algorithm == client.Lease {
			cfg.Faults = append(cfg.Faults,
				model.Fault{At: 4 * time.Second, Kind: model.Pause, Target: "store", For: 2 * time.Second},
				model.Fault{At: 4500 * time.Millisecond, Kind: model.Election, For: 3 * time.Second},
				model.Fault{At: 5 * time.Second, Kind: model.Election, For: time.Second},
				model.Fault{At: cfg.Duration - time.Second, Kind: model.Election, For: 3 * time.Second},
			)
		}
		p, err := model.Compile(&cfg)
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		for _, seed := range []uint64{1, 2, 3} {
			r := p.RunTraced(seed)
			got := model.TimelineOf(r.Trace, r.End)
			require.Equal(t, r.Timeline.Spans, got.Spans, "%s seed %d spans", name, seed)
			require.Equal(t, r.Timeline.Marks, got.Marks, "%s seed %d marks", name, seed)
			n++
		}
	}
	require.Greater(t, n, 60)
}
