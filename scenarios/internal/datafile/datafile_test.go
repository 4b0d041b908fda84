package datafile

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// The format tests here pin the parsing rules on lines of each format;
// the scenarios package's tests read whole real logs made by a Go
// program and a JVM.
func TestParseFormats(t *testing.T) {
	for _, c := range []struct {
		format string
		opt    Options
		src    string
		want   []time.Duration
		at     []time.Duration
	}{
		{Durations, Options{}, "# pauses\n12ms\n\n1.5s\n250us\n", []time.Duration{12 * ms, 1500 * ms, 250 * time.Microsecond}, nil},
		{Durations, Options{Unit: ms}, "12\n0.5\n3ms\n", []time.Duration{12 * ms, ms / 2, 3 * ms}, nil},
		{Durations, Options{Column: "pause", Unit: ms}, "when,pause,who\n1,12,a\n# skip\n2,\"7.5\",b\n", []time.Duration{12 * ms, 7500 * time.Microsecond}, nil},
		{GoGCTrace, Options{}, "hello\ngc 1 @0.005s 1%: 0.15+0.34+0.005 ms clock, 0.30+0.016/0.085/0.081+0.010 ms cpu, 3->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\ngc 2 @1.5s 1%: 2+30+4 ms clock, 1+1/1/1+1 ms cpu, 3->4->0 MB, 4 MB goal, 2 P (forced)\n",
			[]time.Duration{150 * time.Microsecond, 5 * time.Microsecond, 2 * ms, 4 * ms}, []time.Duration{5 * ms, 5 * ms, 1500 * ms, 1500 * ms}},
		{JVMGC, Options{}, "[0.160s][info][gc] Using G1\n[2.077s][info][gc] GC(7) Concurrent Mark Cycle\n[2.102s][info][gc] GC(12) Pause Full (G1 Compaction Pause) 30M->11M(32M) 17.374ms\n[2.107s][info][gc] GC(7) Concurrent Mark Cycle 29.454ms\n[2.2s][info][gc,phases] GC(13) Y: Pause Mark Start 0.007ms\n",
			[]time.Duration{17374 * time.Microsecond, 7 * time.Microsecond}, []time.Duration{2102 * ms, 2200 * ms}},
		{RedisLatency, Options{}, "min: 0, max: 1, avg: 0.19 (1367 samples) -- 15.01 seconds range\nmin: 0, max: 3, avg: 0.30 (1360 samples) -- 15.00 seconds range\n",
			[]time.Duration{95 * time.Microsecond, 150 * time.Microsecond}, nil},
		{RedisLatency, Options{}, "min: 0, max: 1, avg: 0.20 (10 samples)\rmin: 0, max: 1, avg: 0.40 (20 samples)", []time.Duration{100 * time.Microsecond, 200 * time.Microsecond}, nil},
	} {
		d, err := Parse(c.format, []byte(c.src), c.opt)
		if err != nil {
			t.Errorf("%s %q: %v", c.format, c.src, err)
			continue
		}
		if !slices.Equal(d.Samples, c.want) || !slices.Equal(d.At, c.at) {
			t.Errorf("%s %q: got %v at %v, want %v at %v", c.format, c.src, d.Samples, d.At, c.want, c.at)
		}
	}
}

func TestParseErrors(t *testing.T) {
	gotrace := "gc 1 @0.005s 1%: 0.15+0.34+0.005 ms clock, 0.30+0.016/0.085/0.081+0.010 ms cpu, 3->4->0 MB, 4 MB goal, 2 P\n"
	for _, c := range []struct {
		format string
		opt    Options
		src    string
		want   string
	}{
		{Durations, Options{}, "  \n", "the file is empty; want one duration per line"},
		{Durations, Options{}, "12ms\nabc\n", `line 2: "abc": want a duration like "12ms"`},
		{Durations, Options{}, "12\n", `line 1: "12": a bare number: write a unit ("12ms"), or set unit`},
		{Durations, Options{}, "1ms\n-2ms\n", "line 2: \"-2ms\": a duration here must not be negative"},
		{Durations, Options{}, "a,b\n1,2\n", "line 1: \"a,b\": a CSV line: set column"},
		{Durations, Options{Column: "x"}, "a,b\n1ms,2ms\n", `no column "x" in the header; the columns are a, b`},
		{Durations, Options{Column: "b"}, "a,b\n1ms,2ms\n3ms\n", `line 3: "3ms": 1 fields; column "b" is field 2`},
		{JVMGC, Options{}, gotrace, `this looks like a go-gctrace file, not jvm-gc (line 1: "gc 1 @0.005s`},
		{GoGCTrace, Options{}, "[2.1s][info][gc] GC(12) Pause Full (G1 Compaction Pause) 30M->11M(32M) 17.374ms\n", `this looks like a jvm-gc file, not go-gctrace (line 1:`},
		{Durations, Options{}, gotrace, `this looks like a go-gctrace file, not durations`},
		{RedisLatency, Options{}, "12ms\n3ms\n", `this looks like a durations file, not redis-latency`},
		{GoGCTrace, Options{}, "gc 1 @0.005s 1%: 0.15+0.34 ms clock\n", `line 1: "gc 1 @0.005s 1%: 0.15+0.34 ms clock": want "gc N @Ts P%: A+B+C ms clock`},
		{JVMGC, Options{}, "[1.0s][info][gc] Using Z Garbage Collector\n[1.1s][info][gc] GC(0) Garbage Collection (Warmup) 12M(6%)->8M(4%)\n", "ZGC logs its pauses at gc+phases"},
		{JVMGC, Options{}, "2.345: [GC (Allocation Failure) [PSYoungGen: 33280K->5104K(38400K)] 33280K->5112K(125952K), 0.0065 secs]\n", "an old-style -XX:+PrintGC log"},
		{RedisLatency, Options{}, "min: 0, max: x, avg: 0.19 (1367 samples)\n", `want "min: A, max: B, avg: C (N samples)"`},
		{GoGCTrace, Options{}, "hello\nworld\n", "no go-gctrace lines in the file"},
	} {
		_, err := Parse(c.format, []byte(c.src), c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: got %v, want %q", c.format, c.src, err, c.want)
		}
	}
}
