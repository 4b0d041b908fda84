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
// Five places, each holding only what is the kind's own. Loss, the smallest
// kind, shows each:
//
//  1. config.go: the constant in FaultKind (before maxFaultKind) and its
//     name in faultNames; the constant's comment says which Fault fields it
//     reads ("from At on, the default loss probability becomes Prob").
//  2. validate.go: its case in validator.fault, each rule reported at its
//     field ("case Loss:" checks Prob in [0, 1) at at("Prob")). Target
//     rules use target(what, list), which names the valid targets.
//  3. world.go: its case in World.apply, which performs it at f.At with
//     f.target and f.to already resolved, and records it for the trace and
//     the excerpts (k.Record("net", story.Loss, ...)); marks the timeline
//     if it shows there.
//  4. model/story: its record kind beside its sentence, and in notable if
//     violation excerpts should tell it.
//  5. scenarios/build.go: its line in faultUses (the keys it takes and
//     needs: {"prob"}, {"prob"}); faultNeeds explains a new key. The loader
//     needs nothing else: the model's problems reach the file through the
//     origins table. Then the README's fault table.
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
