// Package sim is the deterministic discrete-event kernel every redlocksim run
// stands on.
//
// It owns virtual time, the event queue, named random streams and the
// optional trace recorder, and nothing about Redis, locks or scenario files.
//
// Invariants:
//   - Virtual time is a time.Duration since the run's start (int64
//     nanoseconds). It never goes backwards and is never read from the
//     machine's clock.
//   - Events fire in (time, insertion sequence) order, so two events scheduled
//     for the same instant fire in the order they were scheduled, on every
//     machine and at any GOMAXPROCS.
//   - Scheduling an event in the past is API misuse and panics; the kernel
//     never clamps.
//   - Random numbers come only from streams derived from (run seed, stream
//     name) by a stable hash, so adding a stream does not change the draws of
//     any other stream.
//   - A Kernel is single-threaded: it must not be shared between goroutines.
//     Parallelism belongs across runs, each with its own Kernel.
//   - In steady state, scheduling and firing an event allocates nothing: event
//     slots are recycled through a free list and callbacks take a uint64
//     argument instead of a closure.
package sim
