// Package whatif replays a scenario under the debate's remedies: fencing
// tokens, compare-and-set at the resource, a monotonic validity check,
// delayed restart, fsync always, and WAIT before use.
//
// A remedy is a set of --set overrides on the scenario file, computed from
// the loaded scenario (which faults crash a node, which nodes have their
// own persistence), so every row of the table can be replayed alone with
// the command it prints. A remedy that cannot change the scenario (fencing
// when the resource already checks tokens, WAIT for a lock that has no
// replicas) does not apply, and the table says why.
package whatif
