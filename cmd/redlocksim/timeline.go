package main

import (
	"fmt"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

func drawTimeline(path string, sc *scenarios.Scenario, res model.Result) error {
	return fmt.Errorf("--timeline is not available yet")
}
