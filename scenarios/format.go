package scenarios

import _ "embed" // the format's documentation, printed by redlocksim help scenario

// Format is the scenario file format's documentation, key by key with
// every default: README.md beside this file, the one text that
// `redlocksim help scenario` prints and docs/reference/scenario.md is
// generated from (a test in cmd/redlocksim keeps the page current).
//
//go:embed README.md
var Format string
