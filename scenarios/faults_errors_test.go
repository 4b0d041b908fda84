package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// oneError asserts that src has exactly one problem, an *Error at line
// (0: none) and key, whose message contains msg and whose text starts
// with that place.
func oneError(t *testing.T, src string, line int, key, msg string) {
	t.Helper()
	const file = "case.toml"
	_, err := Parse(file, []byte(src))
	errs := Errors(err)
	if len(errs) != 1 {
		t.Fatalf("got %d errors, want 1:\n%v\ninput:\n%s", len(errs), err, src)
	}
	e := errs[0]
	if e.File != file || e.Line != line || e.Key != key {
		t.Errorf("got %s:%d key %q, want %s:%d key %q (%v)", e.File, e.Line, e.Key, file, line, key, e)
	}
	prefix := file + ": "
	if line > 0 {
		prefix = fmt.Sprintf("%s:%d: ", file, line)
	}
	if key != "" {
		prefix += key + ": "
	}
	if got := err.Error(); !strings.HasPrefix(got, prefix) || !strings.Contains(got, msg) {
		t.Errorf("got  %s\nwant %s...%s...", got, prefix, msg)
	}
	var as *Error
	if !errors.As(err, &as) {
		t.Errorf("errors.As(%T, *Error) fails", err)
	}
}

// errorCase is a file with one mistake and the one error oneError wants.
type errorCase struct {
	name, src string
	line      int
	key, msg  string // msg: a part of the message
}

// oneErrorEach runs oneError on each case, as a subtest of its name.
func oneErrorEach(t *testing.T, cases []errorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { oneError(t, c.src, c.line, c.key, c.msg) })
	}
}

// The fault model's bad input: a pause of a process that does not exist,
// renewal where it cannot work, a preset's bug on an algorithm without it,
// a critical section or think time drawn from an invalid distribution.
func TestFaultModelErrors(t *testing.T) {
	pause := func(target string) string {
		return base + "[[faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"" + target + "\"\nfor = \"1s\"\n"
	}
	for _, c := range []struct {
		name, src string
		line      int
		key, msg  string
	}{
		{"pause of a missing process", pause("n9"), 7, "faults[0].target",
			`no process is called "n9" (valid: n1, n2, n3, n4, n5, c1, c2, c3, resource)`},
		{"pause of the sentinel without failover", pause("sentinel"), 7, "faults[0].target",
			`the sentinel exists only with algorithm = "failover"`},
		{"renewal on the lease lock", base + "algorithm = \"lease\"\nrenewal = \"watchdog\"\n", 5, "lock.renewal",
			"the lease lock renews its lease by keep-alives; watchdog is for the Redis locks (single, failover, redlock)"},
		{"renewal and extend", base + "renewal = \"auto-extend\"\nextend = true\n", 4, "lock.renewal",
			"auto-extend and extend are two ways to keep the lock; choose one"},
		{"unknown renewal", base + "renewal = \"heartbeat\"\n", 4, "lock.renewal",
			`unknown renewal "heartbeat" (valid: none, watchdog, auto-extend)`},
		{"threshold without auto-extend", base + "renewal = \"watchdog\"\nextend_threshold = \"1s\"\n", 5, "lock.extend_threshold",
			`only auto-extend renewal uses extend_threshold; renewal is "watchdog"`},
		{"threshold beyond the ttl", base + "renewal = \"auto-extend\"\nextend_threshold = \"10s\"\n", 5, "lock.extend_threshold",
			"must be positive and shorter than the ttl for auto-extend, got 10s"},
		{"fail-fast on one node", base + "algorithm = \"single\"\nfail_fast = true\n", 5, "lock.fail_fast",
			"only redlock asks several nodes; this lock's algorithm is single"},
		{"critical section with a bad distribution", base + "[workload]\ncritical_section = { kind = \"uniform\", min = \"3s\", max = \"2s\" }\n", 5, "workload.critical_section",
			"uniform latency max 2s is below min 3s; want max >= min"},
		{"think time with a key its kind does not take", base + "[workload]\nthink = { kind = \"exponential\", mean = \"1s\", sigma = 0.5 }\n", 5, "workload.think.sigma",
			"an exponential latency does not take sigma"},
		// Checked once, by the model (network.Latency, the clock-slew
		// fault), and still named at its key, also where every = 0s
		// leaves the pauses off.
		{"negative sigma", base + "[workload]\nthink = { kind = \"lognormal\", median = \"1s\", sigma = -0.5 }\n", 5, "workload.think.sigma",
			"must not be negative, got -0.5"},
		{"negative sigma of pauses that are off", base + "[clients]\npauses = { every = \"0s\", length = { kind = \"lognormal\", median = \"1s\", sigma = -1.0 } }\n", 5, "clients.pauses.length.sigma",
			"must not be negative, got -1"},
		{"negative max_ppm", base + "[[faults]]\nat = \"1s\"\nkind = \"clock-slew\"\ntarget = \"n1\"\nby = \"1s\"\nmax_ppm = -5.0\n", 9, "faults[0].max_ppm",
			"must not be negative (0 means the default 500 ppm), got -5"},
		{"a bug's preset on one node", base + "preset = \"redlock-py-connected-quorum\"\nalgorithm = \"single\"\n", 4, "lock.preset",
			"only redlock counts a quorum; this lock's algorithm is single"},
	} {
		t.Run(c.name, func(t *testing.T) { oneError(t, c.src, c.line, c.key, c.msg) })
	}
	// Every process can be paused, the fixed ones too.
	for _, ok := range []string{pause("resource"), pause("n1"), pause("c3"),
		strings.Replace(pause("store"), "[lock]\n", "[lock]\nalgorithm = \"lease\"\nkeepalive = \"1s\"\n", 1),
		strings.Replace(pause("sentinel"), "[lock]\n", "[lock]\nalgorithm = \"failover\"\n", 1)} {
		if _, err := Parse("ok.toml", []byte(ok)); err != nil {
			t.Errorf("%v\ninput:\n%s", err, ok)
		}
	}
}

// Which partitions take a target or groups is the model's rule (its
// Partition entry); the loader reports it at the key, as its own.
func TestPartitionShapeErrors(t *testing.T) {
	part := func(rest string) string {
		return base + "[[faults]]\nat = \"1s\"\nkind = \"partition\"\n" + rest
	}
	for _, c := range []struct {
		name, src string
		line      int
		key, msg  string
	}{
		{"isolate without a target", part("partition = \"isolate\"\n"), 4, "faults[0].target",
			"required: an isolate partition needs the target it cuts off"},
		{"groups without groups", part("partition = \"groups\"\n"), 4, "faults[0].groups",
			`required: partition = "groups" needs the groups`},
		{"one group", part("partition = \"groups\"\ngroups = [[\"n1\"]]\n"), 8, "faults[0].groups",
			`partition = "groups" needs at least two groups, got 1`},
		{"two groups for a ring", part("partition = \"ring\"\ngroups = [[\"n1\"], [\"n2\"]]\n"), 8, "faults[0].groups",
			`partition = "ring" takes one group`},
	} {
		t.Run(c.name, func(t *testing.T) { oneError(t, c.src, c.line, c.key, c.msg) })
	}
}
