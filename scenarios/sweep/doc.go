// Package sweep owns sweep specs: TOML files that name a base scenario and
// the points at which to run it, and their expansion into points, run
// seeds, shards and an identity hash. It does not simulate: the runner
// (cmd/internal/sweeprun) runs what Spec describes.
//
// A spec is decoded as strictly as a scenario file: unknown keys, values of
// the wrong type and empty axes are errors naming the file, the line and
// the key (*scenarios.Error). Each point's scenario is made by applying
// overrides to the base with scenarios.Base.Apply, which re-runs the
// scenario loader on the edited document, so an axis over a key the
// scenario format does not have, or a value it does not accept, is
// reported at the axis's line in the spec. Parse expands and validates
// every point of a spec of up to CheckedAtLoad points before it returns,
// and a sample that takes every axis value of a larger one: the runner
// checks all of a large spec's points once its run count, known from the
// spec's counts alone, is within its budget.
//
// Invariants:
//   - A point's index, its overrides, the columns and the run seeds are
//     pure functions of the spec (and --seeds): never of the worker count,
//     the shard or map order.
//   - A run's seed depends on the base seed, the point's overrides and the
//     replicate number, not on the point's index, so adding a value to an
//     axis leaves the seeds (and so the results) of the other points as
//     they were. See Spec.RunSeed.
//   - Spec.Hash identifies everything that decides the results: the base
//     scenario's meaning, the fixed overrides, the points in order, seeds,
//     the base seed and the seeding mode.
//
// The spec format is documented in README.md beside this file (Format
// embeds it, for redlocksim help sweep and docs/reference/sweep.md).
package sweep
