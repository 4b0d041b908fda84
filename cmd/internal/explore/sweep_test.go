package explore

import (
	"strconv"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// The ttl-vs-drift sweep's lesson measures the onset at TTL 1 s at about
// 2.0% (0 of 400 seeds at 2.0%, the first at 2.01%); the closed form's
// range at its first point must hold that.
func TestSweepAnalyticTTLVsDrift(t *testing.T) {
	spec, err := sweep.Load("ttl-vs-drift")
	if err != nil {
		t.Fatal(err)
	}
	an := SweepAnalytic(spec)
	cells := an.Cells(spec.Point(0))
	if len(cells) != len(an.Columns) || cells[0] != "nodes.clock.rate_ppm" {
		t.Fatalf("cells %q for columns %q", cells, an.Columns)
	}
	lo, err1 := strconv.ParseFloat(cells[1], 64)
	hi, err2 := strconv.ParseFloat(cells[2], 64)
	if err1 != nil || err2 != nil || !(lo <= 20100 && 20000 <= hi) {
		t.Errorf("predicted onset [%s, %s] ppm at TTL 1s; the lesson measures about 20000 to 20100", cells[1], cells[2])
	}
}

// A sweep over lock.ttl on gc-pause gets the TTL-against-pause prediction
// at each point (from that point's first seed, so the facts' latencies
// differ by a few milliseconds), and it brackets the onset boundary
// measures there (15.973 s to 16 s over 20 seeds).
func TestSweepAnalyticTTLAgainstPause(t *testing.T) {
	spec, err := sweep.Parse("ttl.toml", []byte(`name = "ttl-vs-pause"
base = "gc-pause"
seeds = 2
[axes]
"lock.ttl" = ["12s", "20s"]
`))
	if err != nil {
		t.Fatal(err)
	}
	an := SweepAnalytic(spec)
	for i := range 2 {
		cells := an.Cells(spec.Point(i))
		if len(cells) != 3 || cells[0] != "lock.ttl" {
			t.Fatalf("point %d: cells %q", i, cells)
		}
		lo, err1 := time.ParseDuration(cells[1])
		hi, err2 := time.ParseDuration(cells[2])
		if err1 != nil || err2 != nil || !(lo <= 16*time.Second && 15973*time.Millisecond <= hi) {
			t.Errorf("point %d: predicted onset [%s, %s]; boundary measures 15.973s to 16s", i, cells[1], cells[2])
		}
	}
}
