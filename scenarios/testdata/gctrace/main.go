// Command gctrace churns its heap until the collector has run a given
// number of times; run with GODEBUG=gctrace=1 it writes a real Go GC
// trace to stderr, which the empirical-table tests read.
package main

import (
	"flag"
	"runtime"
)

func main() {
	cycles := flag.Int("cycles", 600, "garbage collections to cause")
	flag.Parse()
	// A small live set (a ring of buffers) keeps each cycle short and
	// frequent; the pointers in the tree give the mark phase work.
	type node struct {
		next *node
		buf  [512]byte
	}
	ring := make([]*node, 64)
	var ms runtime.MemStats
	for i := 0; ; i++ {
		var head *node
		for range 32 {
			head = &node{next: head}
		}
		ring[i%len(ring)] = head
		if i%4096 == 0 {
			runtime.ReadMemStats(&ms)
			if int(ms.NumGC) >= *cycles {
				return
			}
		}
	}
}
