package main

import (
	"runtime/debug"
	"strings"
)

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// version is the module version and the VCS revision the binary was built
// from, as the Go toolchain stamped them: "v1.2.0", "(devel) 3f2a…",
// "(devel) 3f2a…+modified". Results carry it so that a figure can be
// traced to the code that made it.
func version() string {
	info, ok := readBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" || strings.Contains(v, rev[:min(12, len(rev))]) {
		// A tagged or pseudo-version already names its revision.
		return v
	}
	if modified == "true" {
		rev += "+modified"
	}
	return v + " " + rev
}

// versionLine is what --version prints after the program's name: the
// version, the Go toolchain, and a note when the revision is unknown.
func versionLine() string {
	info, ok := readBuildInfo()
	if !ok {
		return "unknown version (built without module support)"
	}
	line := version() + " " + info.GoVersion
	hasRev := false
	for _, s := range info.Settings {
		hasRev = hasRev || s.Key == "vcs.revision"
	}
	if !hasRev && (info.Main.Version == "" || info.Main.Version == "(devel)") {
		line += " (no VCS revision: built outside a git checkout or with -buildvcs=false)"
	}
	return line
}
