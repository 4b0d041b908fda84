// Package bareheap is the yardstick the simulation kernel is measured
// against: a hand-written binary heap of (time, sequence) entries with no
// cancellation, no callbacks and no slab, and the "hold" workload that
// measures it. The kernel's benchmarks and the world's benchmark run it
// side by side with what they measure, so that a ratio quoted in the notes
// is a ratio measured on the same machine in the same run.
package bareheap
