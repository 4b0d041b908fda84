package main

import (
	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/runview"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/plots/perfetto"
	"github.com/redlocksim/redlocksim/scenarios"
)

func writePerfetto(path string, sc *scenarios.Scenario, res model.Result) error {
	data, err := perfetto.Encode(runview.Perfetto(sc, res))
	if err != nil {
		return err
	}
	_, err = atomicfile.Write(path, data)
	return err
}
