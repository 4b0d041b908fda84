package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// The debate's scenarios, built into the binary so that a newcomer needs no
// file to start.
//
//go:embed library/*.toml
var libraryFS embed.FS

// DefaultScenario is what `redlocksim run` runs with no argument: the
// debate's best-known picture.
const DefaultScenario = "gc-pause"

// LibraryNames lists the built-in scenarios, sorted.
func LibraryNames() []string { return embeddedNames(libraryFS, "library") }

// embeddedNames lists the .toml files of an embedded directory by name,
// sorted.
func embeddedNames(fsys embed.FS, dir string) []string {
	entries, err := fs.ReadDir(fsys, dir)
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

// LibraryFile returns the TOML text of a built-in scenario.
func LibraryFile(name string) ([]byte, bool) {
	data, err := libraryFS.ReadFile(path.Join("library", name+".toml"))
	return data, err == nil
}

// LoadLibrary parses a built-in scenario.
func LoadLibrary(name string) (*Scenario, error) {
	data, err := libraryData(name)
	if err != nil {
		return nil, err
	}
	return Parse(name+".toml", data)
}

// libraryData is LibraryFile with the error a user sees for a wrong name.
func libraryData(name string) ([]byte, error) {
	data, ok := LibraryFile(name)
	if !ok {
		return nil, fmt.Errorf("no built-in scenario is called %q (see 'redlocksim list')", name)
	}
	return data, nil
}

// IsFile reports whether arg names a file rather than a built-in scenario:
// it has a .toml suffix or a path separator.
func IsFile(arg string) bool {
	return strings.HasSuffix(arg, ".toml") || strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, '\\')
}

// LoadNamed loads a built-in scenario by name, or a scenario file by path.
func LoadNamed(arg string) (*Scenario, error) {
	return LoadNamedWith(arg, nil)
}
