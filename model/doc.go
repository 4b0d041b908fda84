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
// expired) into events stamped with true time for the checker; the
// checker's Report is the verdict. A narrated run keeps them as a
// check.History, judged at the end by check.Check; a fast run keeps no
// history and feeds a check.Judge as the run goes (online.go), so that its
// memory does not grow with its length. Both give the same Report
// (scenarios' TestRunFastMatchesRunTraced), but for the excerpts, which a
// fast run cannot cut. Run tells them with a story replay (stories.go): the
// same run again, narrated only inside the violations' windows, each
// keeping only what its excerpt shows, so that its memory grows with the
// number of violations and not with the run's length.
//
// A narrated run keeps one record stream, the kernel's trace records
// (sim.Record, of the kinds model/story defines), and everything told
// about the run is drawn from it: the trace the CLI prints, the violation
// excerpts (story.Excerpts) and the timeline (TimelineOf). Each fact the
// timeline shows is a field of a record (a crash's restart delay, the lock
// value a node sets or reloads, a partition's mode and target), so that
// the three cannot disagree; the world builds nothing on the side.
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
// A kind is one entry in faults.go's faultKinds table, beside its constant
// in FaultKind; the validator, the world, the loader and the explorer all
// read that entry. Pause, a stop-the-world pause of any process (a client's
// GC, or a server's, as Jepsen's nemesis paused etcd), is the whole of it:
//
//	Pause: {
//		name: "pause", takes: []string{"Target", "For", "OnAcquire"}, needs: []string{"Target", "For"},
//		record: story.Pauses,
//		check: func(c *faultCheck) {
//			c.target("process", c.v.endpoints)
//			if c.f.For <= 0 {
//				c.errf("For", "a pause needs a positive length")
//			}
//			if c.f.OnAcquire && c.f.Target != "" && !slices.Contains(c.v.clients, c.f.Target) {
//				c.errf("OnAcquire", "only a client acquires the lock, and %q is not one (clients: %s)", c.f.Target, strings.Join(c.v.clients, ", "))
//			}
//		},
//		apply: func(s faultScope, f *plannedFault) {
//			if f.OnAcquire {
//				s.pauseOnAcquire(f.target, f.For)
//				return
//			}
//			s.pause(f.target, f.For, "GC")
//		},
//	},
//
// Its fields:
//
//   - name is the kind in scenario files and traces (ParseFaultKind).
//   - takes and needs are the Fault fields it reads and those it must be
//     given. The loader refuses any other key in a [[faults]] table and
//     names the needed ones, from these lists (FaultKind.Fields, in snake
//     case); scenarios.FaultValue writes back exactly these.
//   - check reports each problem at its field (c.errf("For", ...));
//     c.target(what, list) checks the target and names the valid ones. At
//     and Kind are checked for every kind.
//   - apply performs the fault at f.At with f.target and f.to resolved to
//     endpoints and records it (s.pause records story.Pauses), with every
//     field the timeline needs: TimelineOf draws the timeline from the
//     records, so a kind that should show there needs its case there too.
//     It touches the world only through its faultScope (faultscope.go):
//     the processes by endpoint, the network, the store, the scheduler and
//     the trace. A kind that needs more adds a method there.
//   - record is the record kind apply emits; its sentence is in model/story.
//   - fold, for a clock fault only, folds it into its target's clock spec
//     at Compile (WithClockFault), as clocks are fixed functions of true
//     time; its apply then only narrates (narrateClock).
//
// Then the loader's file form, in package scenarios: the row in
// scenarios/README.md's fault table, and a line in build.go's faultNeeds
// (what a needed key is) only for a field no kind needed before. Tests
// fail until each is there: TestEveryFaultKindIsWhole here (name, check,
// apply, fields that are Fault fields, a told and notable record) and
// TestEveryFaultKindHasItsFileForm there (faultNeeds and the scenarios/README.md row,
// with the needed keys in bold).
//
// A kind that reads a Fault field no kind read before needs that field
// too, which is more than an entry: the field in Fault and in
// faultFields, its decoding in scenarios/build.go's fault (a t.boolean,
// t.dur... line) and its writing back in scenarios/render.go's FaultValue,
// as OnAcquire has. faultKeys follows faultFields, so the key is accepted
// at once, but no test walks the fields through the loader and back: a
// new field brings its own test that loads a file setting it (as
// scenarios/errors_test.go's on_acquire cases do) and renders it back.
//
// Then one entry in each consumer's table, keyed by FaultKind; each
// consumer refuses a kind it has no entry for, with an error that names
// it, rather than skip it, and each has a test that walks FaultKinds() and
// fails until its entry is there:
//
//   - the explorer, cmd/internal/explore/kinds.go's kindRules: what a drawn
//     fault aims at, its magnitudes with their bounds (the --bound keys),
//     the fault that ends one that lasts, how a step is written; or why the
//     explorer does not draw the kind (TestEveryFaultKindHasARule). What to
//     search is the explorer's choice, not the kind's: a kind may be drawn
//     only when --faults names it. A drawn kind also takes its place in
//     the explorer's Kinds, the order --faults lists the drawn kinds in;
//     the same test fails until Kinds holds exactly the table's drawn
//     kinds.
//   - the real harness, cmd/internal/real/harness/faults.go's faultRules:
//     refuse (with the reason, which may depend on the scenario) or
//     schedule its actions in wall time (TestEveryFaultKindHasARule
//     there).
//   - the what-ifs, scenarios/remedy.go's faultRemedies: whether the fault
//     takes a Redis node down and restarts it, which delayed-restart and
//     fsync-always act on (TestEveryFaultKindHasARemedyRule).
//
// # RestartDelay
//
// Scenario files give nodes a restart_delay, the default of a crash's for.
// The loader resolves it into each Fault.For; the model has no such field,
// so that nothing is validated and then ignored.
//
// The package does not print, plot, or read files.
package model
