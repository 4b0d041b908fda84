package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
)

// jvmBursts is a G1 log whose pauses come in bursts: five pauses 100 ms
// apart, then 20 s of quiet, repeated.
func jvmBursts(bursts int) string {
	var b strings.Builder
	n := 0
	for k := range bursts {
		for i := range 5 {
			at := time.Duration(k)*20*time.Second + time.Duration(i)*100*time.Millisecond
			fmt.Fprintf(&b, "[%.3fs][info][gc] GC(%d) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) %d.%03dms\n", at.Seconds(), n, 3+n%40, n%1000)
			n++
		}
	}
	return b.String()
}

// every = "from-log" plays the log's pause times: its bursts stay bursts.
func TestPausesFromLog(t *testing.T) {
	dir := writeFiles(t, map[string]string{"gc.log": jvmBursts(60), "d.txt": "1ms\n2ms\n", "s.toml": `duration = "10m"
[lock]
ttl = "10s"
[clients.pauses]
every = "from-log"
length = { kind = "empirical", file = "gc.log", format = "jvm-gc", tail = "none" }
`})
	sc := mustLoad(t, filepath.Join(dir, "s.toml"))
	p := sc.Config.Clients[0].Pauses
	if len(p.Arrivals) != 300 || p.Arrivals[0] != 0 || p.Arrivals[5] != 20*time.Second {
		t.Fatalf("arrivals %v..., want the log's 300 pause times from 0", p.Arrivals[:6])
	}
	ps := model.RandomPauses(&sc.Config, 1)
	var close, far int
	for i := 1; i < len(ps); i++ {
		if ps[i].Client != ps[i-1].Client {
			continue
		}
		switch gap := ps[i].At - ps[i-1].At; {
		case gap == 100*time.Millisecond:
			close++
		case gap > 19*time.Second:
			far++
		case gap == p.Every: // around again after the log's end
		default:
			t.Fatalf("gap %v between pauses: not one of the log's", gap)
		}
	}
	// 10 minutes hold about 30 bursts per client: 4 close gaps each.
	if close < 3*80 || far < 3*20 || close < 3*far {
		t.Errorf("%d gaps of 100ms and %d of ~20s, want the log's bursts", close, far)
	}
	// Each client starts at its own point of the log.
	if ps[0].At == ps[len(ps)-1].At {
		t.Error("the clients' pauses coincide")
	}
	if _, err := model.RunFast(sc.Config, 1); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "s.toml"), []byte(base+"[clients.pauses]\nevery = \"from-log\"\nlength = { kind = \"empirical\", file = \"d.txt\", format = \"durations\", tail = \"none\" }\n"), 0o644)
	if _, err := Load(filepath.Join(dir, "s.toml")); err == nil || !strings.Contains(err.Error(), "clients.pauses.every: every = \"from-log\" needs a log with the times of at least two pauses") {
		t.Errorf("from-log with a durations file: got %v", err)
	}
}
