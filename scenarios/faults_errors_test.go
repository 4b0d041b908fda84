package scenarios

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
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
	if got := err.Error(); !strings.HasPrefix(got, prefix) || !strings.Contains(e.Msg, msg) {
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

// TestFaultsThatMeanNothing: with a lock on the consensus store, a fault on
// the Redis nodes the file still lists (five by default), a partition
// without groups (which splits those nodes) and a crash of the store mean
// nothing, and an election means nothing with a Redis lock: each is
// refused at its key, naming the algorithm (scenarios/README.md's table
// "What a fault does to each lock"). The same faults aimed where the lock
// lives load.
func TestFaultsThatMeanNothing(t *testing.T) {
	fault := func(alg, body string) string {
		head := "duration = \"30s\"\n[lock]\nalgorithm = \"" + alg + "\"\n"
		if a, _ := client.ParseAlgorithm(alg); !a.OwnTimes() {
			head += "ttl = \"10s\"\n"
		}
		if alg == "lease" {
			head += "keepalive = \"1s\"\n"
		}
		return head + "[[faults]]\nat = \"1s\"\n" + body
	}
	// line is the line of key in src's fault.
	line := func(src, key string) int {
		_, after, _ := strings.Cut(src, "[[faults]]\n")
		n := strings.Count(src, "\n") - strings.Count(after, "\n") + 1
		for i, l := range strings.Split(after, "\n") {
			if strings.HasPrefix(l, key+" =") {
				return n + i
			}
		}
		return n - 1 // the [[faults]] line
	}
	for _, alg := range []string{"lease", "zookeeper", "k8s-lease", "dynamodb", "consul"} {
		onNode := `"n1" is a Redis node, and with algorithm = "` + alg + `" the lock is on the store, not on the nodes: a %s fault on it means nothing (faults on Redis nodes are for algorithm = "single", "failover", or "redlock")`
		partition := `partition = "%s" without groups splits the Redis nodes (isolate cuts its target off from them), and with algorithm = "` + alg + `" the lock is on the store, not on the nodes: it means nothing`
		for _, c := range []struct{ body, key, msg string }{
			{"kind = \"crash\"\ntarget = \"n1\"\n", "target", fmt.Sprintf(onNode, "crash")},
			{"kind = \"power-loss\"\ntarget = \"n1\"\n", "target", fmt.Sprintf(onNode, "power-loss")},
			{"kind = \"pause\"\ntarget = \"n1\"\nfor = \"5s\"\n", "target", fmt.Sprintf(onNode, "pause")},
			{"kind = \"clock-step\"\ntarget = \"n2\"\nby = \"5s\"\n", "target", strings.ReplaceAll(fmt.Sprintf(onNode, "clock-step"), "n1", "n2")},
			{"kind = \"clock-rate\"\ntarget = \"n1\"\nppm = 500.0\n", "target", fmt.Sprintf(onNode, "clock-rate")},
			{"kind = \"spike\"\nto = \"n1\"\nfor = \"5s\"\nby = \"1s\"\n", "to", fmt.Sprintf(onNode, "spike")},
			{"kind = \"cut\"\ntarget = \"c1\"\nto = \"n1\"\n", "to", fmt.Sprintf(onNode, "cut")},
			{"kind = \"drop-message\"\ntarget = \"n1\"\nto = \"c1\"\n", "target", fmt.Sprintf(onNode, "drop-message")},
			{"kind = \"partition\"\npartition = \"isolate\"\ntarget = \"c1\"\n", "partition", fmt.Sprintf(partition, "isolate")},
			{"kind = \"partition\"\npartition = \"isolate\"\ntarget = \"store\"\n", "partition", fmt.Sprintf(partition, "isolate")},
			{"kind = \"partition\"\npartition = \"majority-minority\"\n", "partition", fmt.Sprintf(partition, "majority-minority")},
			{"kind = \"partition\"\npartition = \"ring\"\n", "partition", fmt.Sprintf(partition, "ring")},
			{"kind = \"crash\"\ntarget = \"store\"\n", "target", `the model does not crash the store: with algorithm = "` + alg + `" it stands for a whole ensemble`},
			{"kind = \"power-loss\"\ntarget = \"store\"\n", "target", `the model does not power-loss the store: with algorithm = "` + alg + `" it stands for a whole ensemble`},
		} {
			src := fault(alg, c.body)
			t.Run(alg+"/"+strings.ReplaceAll(strings.TrimSpace(c.body), "\n", " "), func(t *testing.T) {
				oneError(t, src, line(src, c.key), "faults[0]."+c.key, c.msg)
			})
		}
		for _, ok := range []string{
			"kind = \"partition\"\npartition = \"isolate\"\ntarget = \"c1\"\ngroups = [[\"c1\", \"store\"]]\n",
			"kind = \"partition\"\npartition = \"majority-minority\"\ngroups = [[\"c1\", \"c2\", \"store\"]]\n",
			"kind = \"pause\"\ntarget = \"store\"\nfor = \"5s\"\n",
			"kind = \"clock-rate\"\ntarget = \"store\"\nppm = 500.0\n",
			"kind = \"crash\"\ntarget = \"c1\"\nno_restart = true\n",
			"kind = \"cut\"\ntarget = \"c1\"\nto = \"store\"\n",
			"kind = \"election\"\nfor = \"5s\"\n",
		} {
			if _, err := Parse("ok.toml", []byte(fault(alg, ok))); err != nil {
				t.Errorf("%s: %v\ninput:\n%s", alg, err, fault(alg, ok))
			}
		}
	}
	for _, alg := range []string{"single", "failover", "redlock"} {
		src := fault(alg, "kind = \"election\"\nfor = \"5s\"\n")
		oneError(t, src, line(src, ""), "faults[0]",
			`an election means nothing with algorithm = "`+alg+`": only the consensus store has a leader to lose (algorithm = "lease", "zookeeper", "k8s-lease", "dynamodb", or "consul")`)
		for _, ok := range []string{"kind = \"crash\"\ntarget = \"n1\"\n", "kind = \"partition\"\npartition = \"majority-minority\"\n", "kind = \"pause\"\ntarget = \"n1\"\nfor = \"5s\"\n"} {
			if _, err := Parse("ok.toml", []byte(fault(alg, ok))); err != nil {
				t.Errorf("%s: %v\ninput:\n%s", alg, err, fault(alg, ok))
			}
		}
	}
}

// TestFaultLockTableHasEveryKind: README.md's table of what a fault does
// to each lock has a row for every fault kind.
func TestFaultLockTableHasEveryKind(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(raw), "### What a fault does to each lock")
	if !ok {
		t.Fatal("README.md has no table of what a fault does to each lock")
	}
	table, _, _ = strings.Cut(table, "\n#")
	var listed []string
	for _, l := range strings.Split(table, "\n") {
		if first, _, ok := strings.Cut(strings.TrimPrefix(l, "| "), " |"); ok && strings.HasPrefix(l, "| `") {
			for _, k := range strings.Split(first, ", ") {
				listed = append(listed, strings.Trim(k, "`"))
			}
		}
	}
	kinds := model.FaultKinds()
	slices.Sort(kinds)
	slices.Sort(listed)
	if !slices.Equal(listed, kinds) {
		t.Errorf("the table's rows list %q; want every fault kind once: %q", listed, kinds)
	}
}
