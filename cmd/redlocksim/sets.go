package main

import (
	"github.com/redlocksim/redlocksim/scenarios"
)

// loadScenario loads a built-in scenario or a file with the --set
// overrides applied through the same strict loader, so that a bad key or
// value names itself.
func loadScenario(arg string, sets []string) (*scenarios.Scenario, error) {
	sc, _, err := loadScenarioHash(arg, sets)
	return sc, err
}

// loadScenarioHash is loadScenario, and also returns the scenario's
// content hash (Base.Hash of the file with the --set overrides).
func loadScenarioHash(arg string, sets []string) (*scenarios.Scenario, string, error) {
	b, sc, o, err := scenarios.LoadWithSets(arg, sets)
	if err != nil {
		return nil, "", err
	}
	return sc, b.Hash(o...), nil
}

// load is the scenario arg names with the --set overrides applied, and its
// hash (loadScenarioHash); a scenario or an override it cannot load is
// bad input of the command cmd.
func (s setFlags) load(cmd, arg string) (*scenarios.Scenario, string, error) {
	sc, hash, err := loadScenarioHash(arg, s)
	if err != nil {
		return nil, "", badInputf("redlocksim %s: %v", cmd, err)
	}
	return sc, hash, nil
}
