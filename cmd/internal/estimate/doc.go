// Package estimate estimates the probability that one run of a scenario
// violates a property, down to 10⁻⁹, with an honest 95% interval: plain
// Monte Carlo when violations are common enough, else importance sampling
// over the scenario's own random inputs with a tilt learnt by
// cross-entropy iterations (`redlocksim estimate`).
//
// Every random draw of a run comes from a named stream (sim.Stream) with a
// known distribution, so a run drawn from tilted distributions carries its
// exact likelihood ratio (sim.Sampling), and the weighted indicator of a
// violation is an unbiased estimate of the untilted probability.
//
// Determinism: run i of a phase has a seed that is a fixed function of the
// estimate's seed, the phase and i; runs are made in parallel and folded
// in run order, and every stopping rule but --max-time and a signal is
// looked at after fixed numbers of runs, so the result is the same at any
// worker count. See docs/guides/rare-events.md for the methods, their
// diagnostics and their validation.
package estimate
