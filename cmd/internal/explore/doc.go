// Package explore searches fault schedules for counterexamples and shrinks
// them: `redlocksim explore` and `redlocksim boundary`.
//
// What the explorer does with each fault kind (what a fault aims at, the
// magnitudes it draws and shrinks with their bounds, the fault that ends
// one that lasts, how it is written, or why the kind is not drawn) is one
// entry of kinds.go's kindRules, keyed by model.FaultKind; a kind without
// an entry fails TestEveryFaultKindHasARule.
//
// Explore draws schedules swarm-style on top of a base scenario: each run
// enables a random subset of the allowed fault kinds, a number of faults,
// a magnitude scale and a focus moment of the base's fault-free run, and
// draws each fault from those. Every run uses the base's own seed, so the
// schedule is the only thing that differs between runs, and a run is a
// pure function of (base, explore seed, run index): run i's schedule comes
// from the random stream PCG(seed, i), whatever the number of workers.
//
// A violating schedule is shrunk on the same seed: delta debugging drops
// faults, then each magnitude is bisected toward zero and each time toward
// the start, in rounds until nothing moves. The result is 1-minimal:
// removing any one fault, or moving any magnitude or time one step (1 ms,
// 1 ppm, 0.001 of a probability) toward zero, makes the run safe. Then the
// base's last client is dropped while the schedule still violates without
// it, and the faults are shrunk again; nodes are kept, as their number sets
// the quorum. The minimal schedule is written back through the scenarios
// package's TOML writer (scenarios.Base.Render) with the --set overrides,
// so that `redlocksim run FILE` replays the run the explorer judged.
//
// Boundary bisects one numeric scenario key to the value where a verdict
// flips and compares it with a closed-form prediction where one applies
// (Predict: the nodes' clock rate, a node's forward clock step, a client's
// pause, the TTL against a client's pause), which takes its facts (key sets, holds, contenders' requests)
// from a narrated run; sweep --analytic adds the same per point.
// FindCurve (boundary --over) bisects at each value of other keys, one
// value after another, and WriteCurve writes the onset curve as CSV.
//
// The package runs simulations in parallel across runs only; each run is
// model.RunFast, single-threaded. Results are consumed in run order, so
// the output does not depend on the number of workers.
package explore
