// Package story owns the narration of a run: the kinds of record the
// processes and the world emit, and the one sentence each kind reads as.
// Each kind is one typed fact (facts.go): a struct whose tags name the
// record's keys and whose Sentence method says it. The model's actors,
// the world and the real harness emit facts (Trace, Fields), and every
// reader decodes them (Decode), so a kind's keys are named once, on the
// sim and the real side alike. A kind with no fact is a bug that Told
// reports, and the library test that narrates every scenario fails on it.
//
// Records are sim.Records: the actor, the kind and key=value fields, kept
// only in a narrated run. They are the run's one record stream: the trace
// printer (WriteTrace), the violation excerpts (Excerpts), the timeline
// (model.TimelineOf) and the Perfetto export all read the same records,
// and the trace and the excerpts the same sentences. A field that a
// sentence does not say (an acquire's token, a crash's restart delay) is
// there for the timeline.
//
// WriteTrace turns a run's records into the story a teacher reads aloud:
// one line per event in true-time order, with the actor's own wall-clock
// reading beside true time, in plain sentences ("c1 pauses (GC) for 15s",
// "n3 expires the lock key (value c1#1)", "resource rejects c1's write:
// token 33 < 34"). It is a pure function of the records and the clocks:
// the same run gives the same text, which is what the golden traces pin.
package story
