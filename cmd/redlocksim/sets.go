package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

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
// content hash: 32 hex digits (16 bytes of a SHA-256) of the scenario's
// meaning, its TOML as Base.TOML writes it (so comments and layout do not
// count) and the overrides in order. The same file and --set give the same
// hash on any machine; any change of a value changes it.
func loadScenarioHash(arg string, sets []string) (*scenarios.Scenario, string, error) {
	o, err := scenarios.ParseOverrides(sets)
	if err != nil {
		return nil, "", err
	}
	b, err := scenarios.LoadBase(arg)
	if err != nil {
		return nil, "", err
	}
	sc, err := b.Apply(o...)
	if err != nil {
		return nil, "", err
	}
	return sc, scenarioHash(b, o), nil
}

// scenarioHash is loadScenarioHash's hash of base b with overrides o.
func scenarioHash(b *scenarios.Base, o []scenarios.Override) string {
	h := sha256.New()
	base := b.TOML()
	fmt.Fprintf(h, "redlocksim scenario v1\nbase %d\n%s\n", len(base), base)
	for _, s := range o {
		fmt.Fprintf(h, "set %q\n", s.String())
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
