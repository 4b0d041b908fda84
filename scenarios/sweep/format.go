package sweep

import (
	_ "embed" // the format's documentation, printed by redlocksim help sweep
	"strings"
)

// Format is the sweep's documentation (the spec format, seeds, the output
// files, checks before the first run, adaptive sampling, resuming, shards):
// README.md beside this file, the one text that `redlocksim help sweep`
// prints and docs/reference/sweep.md is generated from.
//
//go:embed README.md
var Format string

// columnsHeading opens the section of Format that describes the results
// files' columns.
const columnsHeading = "## Output\n"

// Columns is Format's section on the results files' columns, heading
// included, up to the next section: what `redlocksim help columns` prints
// and docs/reference/columns.md is generated from. It is cut from Format
// rather than kept in a file of its own so that the sweep's documentation
// reads whole in one place.
func Columns() string {
	_, section, ok := strings.Cut(Format, "\n"+columnsHeading)
	if !ok {
		return ""
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	return columnsHeading + section
}
