package model_test

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
)

func TestHealedBy(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name   string
		faults []model.Fault
		want   time.Duration
	}{
		{"none", nil, 0},
		{"a pause ends after its length", []model.Fault{{At: 2 * s, Kind: model.Pause, Target: "c1", For: 5 * s}}, 7 * s},
		{"a clock step at once", []model.Fault{{At: 3 * s, Kind: model.ClockStep, Target: "n1", By: 9 * s}}, 3 * s},
		{"a partition at its heal", []model.Fault{
			{At: 1 * s, Kind: model.Partition, Partition: network.PartitionIsolate, Target: "c1"},
			{At: 4 * s, Kind: model.Heal},
		}, 4 * s},
		{"a partition never healed at the end", []model.Fault{
			{At: 1 * s, Kind: model.Heal},
			{At: 2 * s, Kind: model.Partition, Partition: network.PartitionIsolate, Target: "c1"},
		}, 60 * s},
		{"the latest of all", []model.Fault{
			{At: 1 * s, Kind: model.Crash, Target: "n1", For: 20 * s},
			{At: 5 * s, Kind: model.Pause, Target: "c1", For: 2 * s},
		}, 21 * s},
	} {
		if got := model.HealedBy(c.faults, 60*s); got != c.want {
			t.Errorf("%s: HealedBy = %v, want %v", c.name, got, c.want)
		}
	}
}
