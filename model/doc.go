// Package model builds and runs one lock world: Redis nodes, a sentinel, a
// consensus store, clients, the protected resource, the network between them
// and the faults applied at true times, on one sim.Kernel.
//
// model.Run(cfg, seed) is a pure function: the same Config and seed give the
// same Result, byte for byte, on any machine and at any GOMAXPROCS. A world is
// single-threaded; run many worlds in parallel, never one world across
// goroutines.
//
// The world is the only place that sees true time next to a process's own
// clocks. It turns the actors' observations (acquired, released, wrote,
// expired) into a check.History stamped with true time, and hands it to the
// checker; the checker's Report is the verdict.
//
// Process pauses (GC stop-the-world) are applied here, not in the actors: a
// paused actor's messages and timers wait in order and are handed over when
// it resumes, exactly as a frozen process finds its socket buffers and
// overdue timers when it wakes.
//
// The package does not print, plot, or read files.
package model
