// Package narrate turns a run's trace records into the story a teacher
// reads aloud: one line per event in true-time order, with the actor's own
// wall-clock reading beside true time, in plain sentences ("c1 pauses (GC)
// for 15s", "n3 expires the lock key (value c1#1)", "resource rejects c1's
// write: token 33 < 34"), each from model/story, the one place a kind of
// record is given its sentence.
//
// It is a pure function of the records and the clocks: the same run gives
// the same text, which is what the golden traces pin.
package narrate
