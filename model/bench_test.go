package model_test

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
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
	var msgs, acquisitions, events uint64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r, err := model.Run(cfg, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		msgs += r.Net.Sent
		events += r.Events
		acquisitions += uint64(r.Report.AcquireSuccesses)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(msgs)/sec, "msgs/s")
	// ns/event sets this world's real-time factor against the kernel's own
	// cost per event (sim.BenchmarkHold, sim.BenchmarkBareHeap).
	b.ReportMetric(sec*1e9/float64(events), "ns/event")
	b.ReportMetric(float64(acquisitions)/sec, "acq/s")
	b.ReportMetric(float64(b.N)*cfg.Duration.Seconds()/sec, "x-realtime")
}
