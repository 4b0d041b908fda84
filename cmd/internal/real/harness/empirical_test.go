package harness

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/network"
)

// A real run scaled by f slows an empirical table's draws by f too, as
// it does every other latency.
func TestScaleDividesEmpiricalTables(t *testing.T) {
	var data []time.Duration
	for i := 1; i <= 1000; i++ {
		data = append(data, time.Duration(i)*time.Millisecond)
	}
	e, err := network.NewEmpirical(data, network.TailFit{Kind: network.TailPareto, AboveQuantile: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	cfg := load(t, "gc-pause").Config
	cfg.Network.Latency = network.FromTable(e)
	cfg.Clients[0].Pauses.Length = network.FromTable(e)
	s := Scale(cfg, 4)
	for _, l := range []network.Latency{s.Network.Latency, s.Clients[0].Pauses.Length} {
		for _, z := range []float64{-1, 0, 2, 5} {
			if got, want := l.Table.FromNormal(z), e.FromNormal(z)/4; got-want > 1 || want-got > 1 {
				t.Errorf("scaled draw at z=%v: %v, want %v", z, got, want)
			}
		}
	}
	if cfg.Network.Latency.Table != e {
		t.Error("Scale wrote the caller's config")
	}
}
