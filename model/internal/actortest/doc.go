// Package actortest is a small world for the tests of the model's actor
// packages (redis, sentinel, consensus, resource): a sim.Kernel, a
// network.Net of proto.Msg, one proto.Env per actor with its own clocks,
// crash and restart, and Probe, a client actor that tests make send and
// that records what comes back.
//
// It is a cut-down model.World, which those packages cannot use in their
// tests (model imports them). It owns no policy of its own: no faults but
// the ones a test schedules, no pauses, no checker.
//
// Invariants:
//   - Actors are started by Start, in the order they were added; Restart
//     starts one again. Nothing starts implicitly.
//   - Endpoint i is the i-th actor added, so delivery is an index.
//   - A timer belongs to one incarnation of its actor: after a Crash it
//     never fires, even if the actor restarted before its time.
//   - Each actor's proto.Env is the model World's own (procenv.Proc), so the
//     two cannot drift: timer deadlines are local and converted to true time
//     when set (a later step of the wall clock does not move a pending
//     timer), and a timer for a time the clock never reaches never fires.
//   - Timers live in a slab and probes and observations in reusable
//     slices, so a benchmark that calls Forget and ForgetObservations every
//     round measures the actors, not the harness: 0 allocs/op.
//
// CrashNarrated, RestartNarrated and NarrateClockSteps also write the
// records model.World writes for those faults, for tests that print the
// trace in model/story's words (the step scripts of model/redis and
// model/client).
//
// Failures go to the testing.TB the world was made with; when a test fails
// and tracing is on, the trace is logged.
package actortest
