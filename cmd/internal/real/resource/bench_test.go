package resource

import (
	"testing"
	"time"

	simres "github.com/redlocksim/redlocksim/model/resource"
)

// BenchmarkReadWrite is one read-modify-write (a read and a write, two
// round trips over loopback TCP) against a fencing resource. Each write is
// based on version 0, so the set a read returns stays one element long and
// the cost per operation does not grow with b.N.
func BenchmarkReadWrite(b *testing.B) {
	s, err := Listen(simres.Config{Mode: simres.Fencing}, "127.0.0.1:0", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := NewClient(s.Addr(), "c1", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var elem uint64
	for b.Loop() {
		elem++
		if _, _, err := c.Read(1, elem); err != nil {
			b.Fatal(err)
		}
		if r, err := c.Write(1, elem, elem, 0); err != nil || !r.Accepted {
			b.Fatalf("write: %+v, %v", r, err)
		}
	}
}
