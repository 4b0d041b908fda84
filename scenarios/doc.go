// Package scenarios owns the scenario file format: TOML files that describe
// one lock world (the lock algorithm and its parameters, the workload, the
// Redis nodes, the clients, the network, the protected resource and the
// faults at true times) and what the run is expected to show. Load and Parse
// turn a file into a Scenario whose Config model.Compile accepted, and its
// Plan.
//
// Decoding is strict where github.com/BurntSushi/toml is loose: an unknown
// key, a key in the wrong case, a bare integer where a duration ("10s") is
// meant, a value of the wrong type, an enum value that does not exist, a key
// that the fault or latency kind does not take, and every problem model.Compile
// finds are errors. The model's rules live in the model only: each of its
// problems names a Config field in Go terms, and the origins table (origins.go)
// maps it to the file key it was decoded from, naming the processes a shared
// key applies to. Each error is
// an *Error naming the file, the line, the key path ("lock.ttl",
// "faults[2].target") and what would be valid; several are joined with
// errors.Join. A value that was given but is invalid is never replaced by a
// default.
//
// Lines come from internal/tomlpos, which scans the source after the TOML
// decoder has accepted it and checks that it saw the same keys, in the same
// order, as the decoder's MetaData.Keys.
//
// Every default is set explicitly here (see README.md, which documents each
// key), so that the Config a file produces does not depend on zero values
// meaning something downstream.
//
// A scenario owns what it expects of a run, so the judgement against it is
// here too: Expect.Unexpected lists the checker's verdicts that contradict
// [expect], and Scenario.JudgeLiveness judges property = "liveness" with
// check.Starved within liveness_limit or DefaultLivenessLimit (three
// TTLs, the rule's one statement, which explore's --liveness also
// defaults to).
//
// Base.Hash names a scenario by its content (the base's TOML as TOML
// writes it, and the overrides in order), for the scenario_hash that run,
// real and hunt print.
//
// The package does not simulate: it builds the Config and leaves running it
// to package model.
package scenarios
