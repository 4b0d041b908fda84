package scenarios

import (
	"embed"
	"path"
)

// The built-in sweeps (package sweep reads them), embedded like the
// scenario library. A sweep may name a built-in scenario as its base or
// carry its base inline.
//
//go:embed sweeps/*.toml
var sweepsFS embed.FS

// SweepNames lists the built-in sweeps, sorted.
func SweepNames() []string { return embeddedNames(sweepsFS, "sweeps") }

// SweepFile returns the TOML text of a built-in sweep.
func SweepFile(name string) ([]byte, bool) {
	data, err := sweepsFS.ReadFile(path.Join("sweeps", name+".toml"))
	return data, err == nil
}
