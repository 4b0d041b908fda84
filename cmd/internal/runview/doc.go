// Package runview turns a narrated run (model.Result with its timeline)
// into the plain data of the views that draw it: the space-time diagram
// (plots.Timeline), which run --timeline and the report draw, and the
// Perfetto trace (perfetto.Trace), which run --perfetto writes. The
// command keeps only the writing of files.
package runview
