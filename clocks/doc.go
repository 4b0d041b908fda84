// Package clocks maps true (virtual) time to the local time each simulated
// process reads.
//
// It owns the clock model: oscillator rate error and its changes, steps and
// NTP-like slews of the wall clock, and the inverse question "when will this
// clock read L?" that timers and Redis key expiry ask. It knows nothing of
// the event kernel, Redis or locks: true time is a time.Duration since the
// run's start, as in package sim, and a local reading is a time.Duration on
// the process's own clock (its unix time minus an epoch, say).
//
// A process has two clocks (Process):
//   - Wall (CLOCK_REALTIME) starts at Spec.Offset and is stepped and slewed.
//     A Redis node expires keys by its wall clock, so a forward step on a
//     node expires keys early. Clients that time acquisition with the wall
//     clock (redlock-py, node-redlock) mis-measure across a step.
//   - Mono (CLOCK_MONOTONIC_RAW) starts at 0 and follows the same oscillator,
//     never stepped or slewed. Clients that measure elapsed time with a
//     monotonic clock (redsync, through Go's monotonic time readings) see only rate error.
//
// Invariants:
//   - No floats in the mapping. Rates are whole parts per billion (ppm
//     rounded to nearest once, at construction); readings are computed with
//     128-bit integer products, so every result is exact and the same on
//     every machine.
//   - Local(t) is the floor of the exact rational reading
//     Offset + ∫(1 + rate(u)/1e9)du + steps so far; no rounding error
//     accumulates across segments.
//   - Local is right-continuous: at a step instant the step has happened.
//   - The effective rate error (oscillator plus slew) stays within
//     ±2·MaxRatePPM, so every clock advances at 0.8 to 1.2 local ns per true
//     ns: a wall clock goes back only at a backward step, and the monotonic
//     clock never does.
//   - A slew adds exactly Slew.By to the wall clock and its extra rate never
//     exceeds its MaxPPM; slews do not overlap and no step falls inside one.
//   - When(l, from) is the exact first true time >= from at which the clock
//     reads >= l, even across backward steps.
//   - Clocks are immutable after construction; Local, When and Rate are
//     O(log segments) and do not allocate.
//   - Valid true times are [0, Horizon]; asking outside is API misuse and
//     panics.
//   - Segments exports the clock as its piecewise-linear segments, which
//     read exactly what Local reads; the real harness's clock library
//     (cmd/internal/real/clockshim) evaluates them in a real process.
package clocks
