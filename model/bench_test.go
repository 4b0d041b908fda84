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

func BenchmarkRedlockWorld(b *testing.B) {
	cfg := benchWorld()
	var msgs, acquisitions uint64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r, err := model.Run(cfg, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		msgs += r.Net.Sent
		acquisitions += uint64(r.Report.AcquireSuccesses)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(msgs)/sec, "msgs/s")
	b.ReportMetric(float64(acquisitions)/sec, "acq/s")
	b.ReportMetric(float64(b.N)*cfg.Duration.Seconds()/sec, "x-realtime")
}
