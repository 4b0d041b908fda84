// Package whatif replays a scenario under the debate's remedies and
// tabulates the verdicts: `redlocksim run --what-if` and the report's
// what-if table.
//
// The remedies themselves (fencing tokens, compare-and-set at the
// resource, a monotonic validity check, delayed restart, fsync always, and
// WAIT before use) are scenarios.Remedies: each is a list of overrides
// computed from the loaded scenario (which faults crash a node, which
// nodes have their own persistence), so every row of the table can be
// replayed alone with the command it prints. This package loads the
// scenario once and applies each remedy's overrides to that Base. A remedy
// that cannot change the scenario (fencing when the resource already
// checks tokens, WAIT for a lock that has no replicas) does not apply, and
// the table says why.
package whatif
