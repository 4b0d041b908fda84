package explore

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
)

// "A key never released after a partition": the holder is cut off while
// it releases, so its DELs are lost, and every node's clock has stepped
// back 30 s, so the keys outlive the heal by about 40 s, longer than the
// three TTLs a client may wait once the faults have healed. Without the
// partition the release deletes the keys and everyone gets the lock. The
// DELs are lost only if the cut connections are given up and reset
// (partition_mode = "drop"); under the default, TCP's hold, they arrive at
// the heal and delete the keys.
func TestLivenessKeyNeverReleasedAfterPartition(t *testing.T) {
	e, _ := explorer(t, "baseline", []string{"network.partition_mode=drop"}, Options{Property: Liveness})
	first := e.space.moments[0] // the first hold's start
	var s Schedule
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5"} {
		s = append(s, Step{Fault: model.Fault{At: first.at + 10*time.Millisecond, Kind: model.ClockStep, Target: n, By: -30 * time.Second}})
	}
	s = append(s, Step{Fault: model.Fault{At: first.at + 20*time.Millisecond, Kind: model.Partition, Partition: network.PartitionIsolate, Target: first.client}, Lasts: time.Second})
	bad, what, err := e.judge(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bad {
		t.Fatalf("%v keeps liveness, want a starved client", s)
	}
	t.Log(what)
	if e.Violates(s.without(len(s) - 1)) {
		t.Errorf("without the partition %v still starves a client", s.without(len(s)-1))
	}
	min, on := e.Shrink(s)
	if !on.Violates(min) || len(min) > len(s) {
		t.Errorf("shrunk to %v", min)
	}
	t.Log(min)
}

// Explore judges liveness by the base's own liveness_limit, as run judges
// the base, and by three TTLs only when neither the base nor the caller
// gives one.
func TestLivenessLimitFromBase(t *testing.T) {
	e, _ := explorer(t, "baseline", []string{"property=liveness", "liveness_limit=7s"}, Options{Property: Liveness})
	if e.limit != 7*time.Second {
		t.Errorf("base with liveness_limit = 7s: explorer limit %v, want 7s", e.limit)
	}
	e, _ = explorer(t, "baseline", []string{"property=liveness", "liveness_limit=7s"}, Options{Property: Liveness, Liveness: 4 * time.Second})
	if e.limit != 4*time.Second {
		t.Errorf("--liveness 4s over a base's 7s: explorer limit %v, want 4s", e.limit)
	}
	e, _ = explorer(t, "baseline", nil, Options{Property: Liveness})
	if want := 3 * e.sc.Config.Lock.TTL; e.limit != want {
		t.Errorf("no limit anywhere: explorer limit %v, want three TTLs, %v", e.limit, want)
	}
}
