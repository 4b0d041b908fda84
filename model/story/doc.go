// Package story owns the narration of a run: the kinds of record the
// processes and the world emit (as constants, so that an emitter and its
// sentence cannot drift apart), and the one sentence each kind reads as.
// A kind's constant and its sentence sit on neighbouring lines of
// sentences.go; a kind with no entry is a bug that Told reports, and the
// library test that narrates every scenario fails on it.
//
// Records are sim.Records: the actor, the kind and key=value fields, kept
// only in a narrated run. The trace printer (cmd/internal/narrate), the
// violation excerpts and the Perfetto export all read the same records and
// the same sentences.
package story
