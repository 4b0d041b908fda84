// Package danger scores, while a run goes, how close it has come to
// violating a property: the score multilevel splitting sets its levels on
// (cmd/internal/estimate, docs/guides/rare-events.md).
//
// The score of mutual exclusion is the holder's margin: for each client
// that believes it holds the lock, how much of its keys' life is gone,
// 1 − (time until another client could take the lock) / TTL, where the
// time until another could take it is read from the nodes' own keys (the
// holder's lock value and its expiry on each node's wall clock, the quorum
// the algorithm needs; a node that is down cannot be taken). It is 0 when
// the keys were just set or renewed and 1 when they are gone at enough
// nodes while the holder still believes: the state from which any waiting
// client's next try breaks mutual exclusion. It rises continuously while a
// holder is paused, which is what lets splitting cut one long pause into
// levels. A violation scores Top, above every margin, so that a violation
// always reaches the last level.
//
// When every paused client's pause lengths have a known law (lognormal,
// exponential, uniform), the score is sharper: the chance that the
// holder's pause outlasts its keys (Outlasts), from the time it has been
// frozen and the time until the lock is free. The margin ranks a long
// pause that started early in the keys' life with a short one that
// started late; this ranks them by how likely each is to end in a
// violation, which is what splitting's levels should follow (the
// committor). A run's score is then a probability, in [0, 1], and a
// violation still scores Top.
//
// A run's score is a Trace: the running maximum, each time it rises, with
// the virtual time of the event after which it was seen. Splitting clones
// a particle just after the first step above a level.
//
// The score is a pure function of the world's state (keys, clocks, holds):
// it draws nothing and schedules nothing, so a scored run fires the same
// events as an unscored one. Any score gives an unbiased splitting
// estimate; a good one only makes it cheaper.
package danger
