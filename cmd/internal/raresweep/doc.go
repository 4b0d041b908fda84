// Package raresweep runs the rare-event estimator at every point of a
// sweep (sweep --estimate): one estimate per point instead of a fixed
// number of plain runs, so a figure's low points are estimates with
// intervals down to 1e-9 rather than zeros. Points run one after another,
// each estimate parallel across its runs; each point's seed is the
// sweep's first run seed for it (sweep.Spec.RunSeed), so a point's row is
// the same whatever the shard, the worker count or the points beside it.
// Finished rows are kept in OUT.partial as they finish, so an interrupted
// sweep loses none of them and --resume goes on from there.
//
// The file is a results file as a sweep writes one: point, the keys
// (sweep.KeyTable, so a duration key has KEY_s in seconds beside it),
// then the estimate's columns. The shard unit is the point, as in a
// sweep: shard K/N estimates points K-1, K-1+N, ..., and its file starts
// with the sweep's shard line (sweeprun.ShardLine, with Hash of the spec
// and the estimate's settings), so that the sweep's merge joins the
// shards into the one-machine file, byte for byte.
package raresweep
