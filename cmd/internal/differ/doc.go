// Package differ searches for the places where the simulator and a real
// system part: `redlocksim compare --explore`.
//
// It draws fault schedules from explore's space over a base scenario, runs
// each once in the simulator (model.RunFast on the base's seed) and Repeat
// times for real (through a Runner: the real harness, or a stub in tests),
// and judges each property, mutual exclusion and the resource, on both
// sides. A schedule disagrees when, for either property, the simulated
// verdict differs from the majority of the real runs (violation when at
// least half of them violated, as compare says), or the 95% Wilson
// interval of the real runs' violation rate excludes the simulated outcome
// (0 or 1).
//
// Every drawn schedule ends as exactly one of:
//   - refused: the Runner cannot run it (a kind or setting real refuses, or
//     a fault time or magnitude below what a real run resolves at the
//     scale), so it is never run for real;
//   - agree;
//   - flaky: it disagreed, but a second batch of Repeat real runs did not;
//     it is reported with both batches' counts and not shrunk;
//   - disagree: both batches disagreed the same way. It is shrunk with
//     explore's shrinker (explore.Explorer.ShrinkWhile), with "still
//     disagrees the same way, in a batch of Repeat real runs" as the
//     property; every step the shrinker tries costs Repeat real runs, and
//     once Budget real runs (the confirming batch included) are spent on
//     one disagreement, further steps count as not disagreeing, so the
//     shrink keeps the smallest schedule confirmed so far. The result is
//     written as a scenario file (explore's writer), whose lesson gives
//     both verdicts, the real runs' counts and the shrink's path.
//
// The simulated side is deterministic; the real side is not, so the
// command states the machine, the servers' versions and the scale beside
// the result.
//
// Real runs execute one at a time. When ctx ends, the search stops and
// returns what it found, with Interrupted set.
package differ
