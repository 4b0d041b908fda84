package perfetto

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkEncode encodes a trace the size of a 60-second five-node,
// three-client run (about 30,000 messages, 2,000 slices): what
// `run --perfetto` pays on top of the run.
func BenchmarkEncode(b *testing.B) {
	t := Trace{Tracks: []string{"c1", "c2", "c3", "n1", "n2", "n3", "n4", "n5", "resource"}}
	at := time.Duration(0)
	for i := range 15000 {
		c, n := t.Tracks[i%3], t.Tracks[3+i%5]
		at += 4 * time.Millisecond
		t.Messages = append(t.Messages,
			Message{From: c, To: n, Sent: at, At: at + time.Millisecond, Kind: "SET-NX", Req: uint64(i)},
			Message{From: n, To: c, Sent: at + time.Millisecond, At: at + 2*time.Millisecond, Kind: "REPLY", Req: uint64(i), Reply: true})
		if i%8 == 0 {
			t.Slices = append(t.Slices, Slice{Track: n, Cat: "key", Name: fmt.Sprint("key ", i), Start: at, End: at + 3*time.Millisecond})
		}
	}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		out, err := Encode(t)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size)/1e6, "MB/trace")
}
