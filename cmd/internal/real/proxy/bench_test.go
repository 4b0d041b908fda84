package proxy

import (
	"io"
	"net"
	"testing"
	"time"
)

// BenchmarkRoundTrip is one byte's round trip through an echo server,
// directly and through a proxy link with no fault: the proxy's cost on
// every request of a real run.
func BenchmarkRoundTrip(b *testing.B) {
	ln, err := listenEcho()
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	s := New(nil, 1)
	defer s.Close()
	via, err := s.Link("bench", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, addr string }{{"direct", ln.Addr().String()}, {"proxy", via}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := net.DialTimeout("tcp", bc.addr, 5*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			buf := []byte{'x'}
			for b.Loop() {
				if _, err := c.Write(buf); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
