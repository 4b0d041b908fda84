package scenarios

import (
	"runtime"
	"strings"
	"testing"
)

// TestLimits pins the errors of rates with no physical meaning and of
// nesting no scenario needs, in TestErrors' way: one mistake, one error,
// at file:line:key, saying what is valid.
func TestLimits(t *testing.T) {
	const lengthOK = `length = { kind = "exponential", mean = "10ms" }`
	oneErrorEach(t, []errorCase{
		{"a pause every nanosecond", base + "[clients]\npauses = { every = \"1ns\", " + lengthOK + " }\n", 5, "clients.pauses.every",
			"must be 0s (none) or at least 1ms, got 1ns"},
		{"a client's pause every microsecond", base + "[[clients.client]]\nname = \"c1\"\npauses = { every = \"1us\", " + lengthOK + " }\n", 6, "clients.client[0].pauses.every",
			"must be 0s (none) or at least 1ms, got 1µs"},
		{"an fsync every nanosecond", base + "[nodes]\npersistence = \"everysec\"\nfsync_every = \"1ns\"\n", 6, "nodes.fsync_every",
			"must be at least 1ms, got 1ns"},
		{"a sentinel ping every nanosecond", base + "[sentinel]\nping_every = \"1ns\"\n", 5, "sentinel.ping_every",
			"must be at least 1ms, got 1ns"},
		{"no think time and no retry delay", base + "retry_delay = \"0s\"\nretry_jitter = \"0s\"\n[workload]\nthink = \"0s\"\n", 7, "workload.think",
			"think = 0s with retry_delay = 0s has every client ask for the lock again at once, without end: set think or lock.retry_delay to at least 1ms, or limit workload.iterations"},
		{"arrays nested too deep", base + "[clients]\nx = " + strings.Repeat("[", 17) + strings.Repeat("]", 17) + "\n", 5, "",
			"arrays and inline tables nest more than 16 deep here"},
	})
	// What is meaningful stays accepted.
	for _, src := range []string{
		base + "[clients]\npauses = { every = \"1ms\", " + lengthOK + " }\n",
		base + "[clients]\npauses = { every = \"0s\" }\n",
		base + "retry_delay = \"0s\"\nretry_jitter = \"0s\"\n[workload]\nthink = \"0s\"\niterations = 5\n",
		base + "[workload]\nthink = \"0s\"\n",
	} {
		if _, err := Parse("ok.toml", []byte(src)); err != nil {
			t.Errorf("refused a meaningful file: %v\n%s", err, src)
		}
	}
}

// deepFile is the attack: a 200 KB scenario with 100,000 nested
// arrays.
func deepFile() []byte {
	return []byte(base + "[clients]\nx = " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n")
}

// TestDeepNestingIsRefusedCheaply: the deep file is refused, with its
// line, having allocated far below 100 MB (before the limit, the decoder
// and the positions took over 4 GB). Its time is BenchmarkDeepNesting's.
func TestDeepNestingIsRefusedCheaply(t *testing.T) {
	data := deepFile()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Parse("deep.toml", data)
	runtime.ReadMemStats(&after)
	errs := Errors(err)
	if len(errs) != 1 || errs[0].Line != 5 || !strings.Contains(errs[0].Msg, "nest more than 16 deep") {
		t.Fatalf("got %v, want one error at line 5 about the nesting", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Fatalf("refusing the deep file allocated %d MB, want under 100 MB", alloc>>20)
	}
}

func BenchmarkDeepNesting(b *testing.B) {
	data := deepFile()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("deep.toml", data); err == nil {
			b.Fatal("accepted")
		}
	}
}

// TestLargeDocumentIsRefused: a document over MaxFileBytes is refused by
// its size before it is decoded (for a file, before it is read:
// TestLargeFilesAreRefusedAtOnce).
func TestLargeDocumentIsRefused(t *testing.T) {
	_, err := Parse("mem.toml", make([]byte, MaxFileBytes+1))
	if err == nil || !strings.Contains(err.Error(), "mem.toml: the file is more than 1 MiB: too large") {
		t.Fatalf("got %v", err)
	}
	// At the limit exactly, the size is not what is refused.
	_, err = Parse("edge.toml", append([]byte(base), make([]byte, MaxFileBytes-len(base))...))
	if err != nil && strings.Contains(err.Error(), "too large") {
		t.Fatalf("a file of exactly the limit is refused for its size: %v", err)
	}
}
