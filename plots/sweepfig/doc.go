// Package sweepfig turns result tables into figures: a sweep's results
// CSV as lines with their intervals (Lines) or as a heatmap (Heatmap),
// compare --sweep's real runs over the lines (Overlay), and boundary
// --over's onset curve (Onset). It names keys and columns in words with
// their units (Labels), scales a clock rate to percent where it reads
// better, and writes the caption that says what the intervals are and how
// many runs stand behind each point.
//
// It reads tables through package results, which owns the formats (the
// columns, their intervals and kinds, the --where selection, the onset
// curve's CSV), and draws through package plots, which takes plain data.
// It imports nothing else of the project, and runs nothing: the command
// (cmd/redlocksim's plot) parses the flags, calls it and saves the figure.
//
// Bad input is an error naming the file, the line and the column, and what
// would be valid; nothing is dropped silently: a row without a y value, or
// a real row without a line, is counted in Drawn for the command to say.
package sweepfig
