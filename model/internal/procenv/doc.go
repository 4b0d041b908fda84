// Package procenv is the proto.Env that every world gives its actors: the
// simulation's World (package model) and the test harness (actortest) both
// build their processes on it, so that what an actor sees cannot differ
// between its unit tests and the runs it is judged by.
//
// A Host holds what the processes of one world share: the kernel, the
// network and the table of pending timers. A Proc is one actor's
// environment minus Observe, which each world records its own way, and
// minus the decision of what to do with a timer that comes due: the Host
// hands it to the world's due function, which delivers it, drops it (the
// process crashed since) or holds it (the process is paused).
//
// Invariants:
//   - A timer's slot lives from SetTimer to its firing or Cancel; Cancel of
//     a fired, cancelled or zero ID does nothing and reports false.
//   - A timer set for a local time the clock never reaches (clocks.Never)
//     is scheduled at that time and so never fires; it is not an error.
//   - Timers carry the incarnation of their process; the world drops those
//     of an earlier one.
package procenv
