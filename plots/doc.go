// Package plots draws redlocksim's figures with gonum.org/v1/plot: the
// space-time diagram of one run (TimelinePlot), the lines of a sweep with
// their confidence intervals (LinePlot), a two-parameter sweep as a
// heatmap (Heatmap) and an onset curve, measured beside the closed form
// (OnsetPlot). Save writes a figure as SVG, PNG (at PNGDPI) or PDF,
// atomically.
//
// The package takes plain data, defined here (Timeline, Series, Grid); it
// does not import the simulator and runs nothing. The command converts a
// run's result or a sweep's CSV into these types. Input that cannot be
// drawn honestly (a lane nobody declared, a time outside the run, a NaN
// where a number is needed, a value a log axis cannot show) is an error,
// never silently dropped or clamped.
//
// Two sub-packages write a run or the debate in other formats, on the same
// terms (plain data in, bytes out, nothing of the simulator imported):
// plots/perfetto, a run as Chrome's Trace Event JSON, and plots/report,
// the debate as one self-contained HTML page.
//
// A sweep's figure is a Figure: the plot and, under it, a caption (what
// the intervals are, how many runs stand behind a point) and the notes of
// what did not fit where it belongs. Nothing is dropped silently: a
// heatmap cell's value or interval, or a tick label, that does not fit
// gets a number, "[1]", and a note that gives it; the notes are planned
// for the size the figure is drawn at.
//
// Every text is in Liberation Sans. Legends sit in a strip above the data,
// never over it; their columns are planned for the size each figure is
// designed for (TimelineSize, LineWidth × LineHeight, HeatmapWidth ×
// HeatmapHeight), so a much narrower canvas may crowd them.
//
// Figures are a pure function of their input: no clock, no randomness and
// no map iteration reaches the output, so the same input gives the same SVG
// byte for byte (the golden tests in testdata rely on it); gonum's SVG
// writer puts no date or random id in the file. PNG output is deterministic
// too. The PDF writer would embed the current time as the creation and
// modification dates and order its font catalogue by map iteration; Save
// pins the dates to the Unix epoch and sorts the catalogue (fpdf package
// defaults, set once), so PDFs are reproducible as well.
package plots
