package main

import (
	"github.com/redlocksim/redlocksim/scenarios"
)

// applySets loads a scenario with --set overrides applied through the same
// strict loader, so that a bad key or value names itself.
func applySets(arg string, sets []string) (*scenarios.Scenario, error) {
	o, err := scenarios.ParseOverrides(sets)
	if err != nil {
		return nil, err
	}
	return scenarios.LoadNamedWith(arg, o)
}
