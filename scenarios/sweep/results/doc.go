// Package results owns the statistics of redlocksim's result tables: the
// 95% intervals that every rate and mean in a sweep's results file, a
// hunt's report and compare's table carry.
//
//   - Wilson: a proportion k of n runs (the per-run violation rates).
//   - ClopperPearson: the same proportion, exact (never below 95%
//     coverage, wider than Wilson).
//   - Garwood: a Poisson count k, exact; PoissonRate divides it by an
//     exposure (acquisitions, hours) to give a rate per unit of exposure.
//     With k = 0 its upper end is −ln 0.025 ≈ 3.689 units: a rate nobody
//     saw is bounded, never [0, 0].
//   - Spread, CoSpread, MeanInterval: Student t intervals on a mean, and the
//     delta-method interval of a ratio of sums, accumulated in one pass.
//
// It also defines the results format's columns once (Column: name, label,
// unit, interval kind): Summary, Rates and Raw give the sweep runner its
// header (Names), plot its interval columns (Column.Bounds) and the
// figures their labels and units (Lookup).
//
// And it reads them back: ReadTable reads a results CSV (a sweep's, a raw
// file, compare --sweep's real table) with each row's file line, Numeric
// reads a column as numbers or durations in seconds and checks a sweep
// column's range (KindOf), and ParseWhere and Table.Where are plot's and
// compare --sweep's --where selection. The onset curve that boundary
// --over writes has its format here too (CurveColumns, WriteCurve,
// ReadCurve): one writer and one reader.
//
// Everything here is a pure function of its arguments: the same counts give
// the same bytes, whatever the worker count or the order the runs finished
// in (the accumulators take the runs in replicate order).
//
// The package imports nothing from cmd/: the sweep runner, hunt, compare,
// explore and the rare-event estimator all use it.
package results
