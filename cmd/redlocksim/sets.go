package main

import (
	"github.com/redlocksim/redlocksim/scenarios"
)

// loadScenario loads a built-in scenario or a file with the --set
// overrides applied through the same strict loader, so that a bad key or
// value names itself.
func loadScenario(arg string, sets []string) (*scenarios.Scenario, error) {
	o, err := scenarios.ParseOverrides(sets)
	if err != nil {
		return nil, err
	}
	return scenarios.LoadNamedWith(arg, o)
}
