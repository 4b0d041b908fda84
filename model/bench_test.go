package model_test

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/sim"
	"github.com/redlocksim/redlocksim/sim/bareheap"
)

// benchWorld is the reference world: Redlock, 5 nodes, 5 clients,
// TTL 10s, critical section 100ms, think 100ms, random pauses on, ten
// minutes of virtual time.
func benchWorld() model.Config {
	cfg := redlockWorld(5)
	cfg.Duration = 10 * time.Minute
	for i := range cfg.Clients {
		cfg.Clients[i].Pauses = model.PauseConfig{Every: 5 * s, Length: network.Exponential(50 * ms)}
	}
	return cfg
}

// BenchmarkRedlockWorld runs benchWorld once per op. Its real-time factor
// is a property of the world as much as of the simulator: five contending
// clients make about 830 kernel events (540 messages) per virtual second,
// since every failed attempt still sends five SETs and five releases, so
// x-realtime = 1e9 / (830 × ns/event). A bare binary heap alone costs about
// 40 ns per event at this world's queue length (about 18 pending events),
// which caps the factor near 30,000× before any actor does anything.
func BenchmarkRedlockWorld(b *testing.B) {
	cfg := benchWorld()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	msgs, events, acquisitions := runWorlds(b, cfg, model.Run)
	runtime.ReadMemStats(&after)
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(msgs)/sec, "msgs/s")
	// ns/event sets this world's real-time factor against the kernel's own
	// cost per event (sim.BenchmarkHold, sim.BenchmarkBareHeap).
	worldNs := sec * 1e9 / float64(events)
	b.ReportMetric(worldNs, "ns/event")
	b.ReportMetric(float64(acquisitions)/sec, "acq/s")
	virtual := float64(b.N) * cfg.Duration.Seconds()
	b.ReportMetric(virtual/sec, "x-realtime")
	b.ReportMetric(yearsPerCoreDay(virtual, sec), "sim-years/core-day")
	// What a run keeps grows with its virtual length: bytes allocated per
	// virtual second (history, resource set, and garbage alike).
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/virtual, "B/vsec")

	// The yardstick, measured in the same run: a bare binary heap's push
	// and pop at the world's mean queue length.
	b.StopTimer()
	qlen := model.MeanPending(cfg, 1)
	heapNs := bareHeapNs(max(1, int(qlen+0.5)))
	b.ReportMetric(qlen, "queue-len")
	b.ReportMetric(heapNs, "heap-ns/event")
	b.ReportMetric(worldNs/heapNs, "world/heap")
}

// bareHeapNs is the bare heap's cost per push and pop at queue length n:
// the median of five timings of a million steps. (testing.Benchmark
// cannot run inside a benchmark: it waits for the lock the running one
// holds.)
func bareHeapNs(n int) float64 {
	h := bareheap.NewHold(n, sim.NewStream(1, "hold"))
	const steps = 1_000_000
	var ns []float64
	for range 5 {
		start := time.Now()
		for range steps {
			h.Step()
		}
		ns = append(ns, float64(time.Since(start).Nanoseconds())/steps)
	}
	slices.Sort(ns)
	return ns[len(ns)/2]
}

// yearsPerCoreDay is the simulated time one core covers in a day of
// computing, in years: the unit simulation testing quotes (TigerBeetle's
// VOPR, about 2). A benchmark runs on one goroutine, so its elapsed time
// is one core's.
func yearsPerCoreDay(virtualSec, elapsedSec float64) float64 {
	const daysPerYear = 365.25
	return virtualSec / elapsedSec / daysPerYear
}

// BenchmarkBaselineWorld runs the library's baseline scenario (60 s of
// virtual time, three clients, five nodes) once per op, compiled and run
// as model.RunFast does. It is the world that testdata/simpy/baseline.py
// models in SimPy, for the ratio in docs/results/benchmarks.md.
func BenchmarkBaselineWorld(b *testing.B) {
	cfg := baselineConfig(b)
	msgs, events, _ := runWorlds(b, cfg, model.RunFast)
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(msgs)/float64(b.N), "msgs/run")
	b.ReportMetric(float64(events)/float64(b.N), "events/run")
	b.ReportMetric(yearsPerCoreDay(float64(b.N)*cfg.Duration.Seconds(), sec), "sim-years/core-day")
}

// BenchmarkBaselineWorldFixed is BenchmarkBaselineWorld's cost that does
// not grow with virtual time: the same scenario compiled, its world built,
// its clients started, run for 1 ns and judged. Against the full run's
// cost it bounds what a reset instead of a rebuild could save
// (docs/results/benchmarks.md, fifth turn).
func BenchmarkBaselineWorldFixed(b *testing.B) {
	cfg := baselineConfig(b)
	cfg.Duration = 1
	b.ReportAllocs()
	_, events, _ := runWorlds(b, cfg, model.RunFast)
	b.ReportMetric(float64(events)/float64(b.N), "events/run")
}

func baselineConfig(b *testing.B) model.Config {
	sc, err := scenarios.LoadLibrary("baseline")
	if err != nil {
		b.Fatal(err)
	}
	return sc.Config
}

// runWorlds runs cfg with run (model.Run, model.RunFast) once per op, at
// seeds 1, 2, ..., and sums the messages sent, the events fired and the
// acquisitions made.
func runWorlds(b *testing.B, cfg model.Config, run func(model.Config, uint64) (model.Result, error)) (msgs, events, acquisitions uint64) {
	for i := 0; b.Loop(); i++ {
		r, err := run(cfg, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		msgs += r.Net.Sent
		events += r.Events
		acquisitions += uint64(r.Report.AcquireSuccesses)
	}
	return msgs, events, acquisitions
}
