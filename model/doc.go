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
// A Config becomes a world in two steps. Compile validates it, each rule
// once and in Go terms (every problem is a *FieldError with the field's
// Path, the process it belongs to and the cause; the scenario loader maps
// paths back to file lines), and compiles it into a Plan: endpoints
// resolved in a fixed order, each clock's final spec with its clock faults
// folded in, and the fault schedule with its names resolved. NewWorld
// consumes a Plan and checks nothing again.
//
// # How to add a fault kind
//
// Take a pause of a server, a kind that freezes a node as Pause freezes a
// client:
//
//  1. config.go: add the constant to FaultKind (before maxFaultKind) and its
//     name to faultNames; say in the constant's comment which Fault fields
//     it reads.
//  2. validate.go: add its case to validator.fault, with the rules on those
//     fields, each reported at its field (at("For"), target("node",
//     v.nodes)). A rule across kinds goes in the shared part above the switch.
//  3. world.go: add its case to World.apply, which performs it at f.At with
//     f.target already resolved, and narrates it (logf for the violation
//     excerpts, Record for the trace, the timeline for the diagram).
//  4. scenarios/build.go: add a line to faultUses (the keys it takes and
//     needs); faultNeeds explains any new key. The loader needs nothing
//     else: the model's problems reach the file through the origins.
//  5. README: the fault table.
//
// Clock faults are special in one way: they are folded into the clock
// specs at Compile (WithClockFault), since clocks are fixed functions of
// true time; apply only narrates them.
//
// # RestartDelay
//
// Scenario files give nodes a restart_delay, the default of a crash's for.
// The loader resolves it into each Fault.For; the model has no such field,
// so that nothing is validated and then ignored.
//
// The package does not print, plot, or read files.
package model
