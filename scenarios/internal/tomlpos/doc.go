// Package tomlpos finds the line on which each key of a TOML document is
// written, which github.com/BurntSushi/toml records but does not export.
//
// It is a scanner, not a parser: it relies on the document having been
// accepted by toml.Decode first, and checks itself against the decoder with
// Agrees, which compares the keys it saw, in order, with MetaData.Keys. A
// document on which the two disagree must not be trusted for positions.
//
// Keys are addressed by paths: table and key names joined by dots, array
// elements by a 0-based index in brackets, e.g. "faults[2].target",
// "nodes.node[0].clock.steps[1].at" or "network.latency". Names that are not
// bare TOML keys are written quoted, as strconv.Quote does.
package tomlpos
