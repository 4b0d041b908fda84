package scenarios

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// The built-in sweeps (package sweep reads them), embedded like the
// scenario library. A sweep may name a built-in scenario as its base or
// carry its base inline.
//
//go:embed sweeps/*.toml
var sweepsFS embed.FS

// SweepNames lists the built-in sweeps, sorted.
func SweepNames() []string {
	entries, err := fs.ReadDir(sweepsFS, "sweeps")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".toml"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// SweepFile returns the TOML text of a built-in sweep.
func SweepFile(name string) ([]byte, bool) {
	data, err := sweepsFS.ReadFile(path.Join("sweeps", name+".toml"))
	return data, err == nil
}
