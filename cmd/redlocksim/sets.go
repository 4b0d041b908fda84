package main

import (
	"fmt"

	"github.com/redlocksim/redlocksim/scenarios"
)

// applySets is replaced once scenario overrides land.
func applySets(arg string, sets []string) (*scenarios.Scenario, error) {
	return nil, fmt.Errorf("--set is not available yet")
}
