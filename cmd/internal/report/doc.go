// Package report assembles the debate's page (plots/report renders it):
// a scenario's section (Section: the narrated run, its timeline, trace
// and metrics, and the remedies replayed), and the reality check read
// from what compare and real printed (ReadReality). The report command
// is its wiring: flags, the headline sweeps, writing the file.
package report
