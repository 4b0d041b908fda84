package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
	"github.com/redlocksim/redlocksim/sim/field"
)

// base is a valid file; cases append to it or replace it.
const base = `duration = "30s"
[lock]
ttl = "10s"
`

// zk is a valid file with Curator's lock on ZooKeeper.
const zk = `duration = "30s"
[lock]
algorithm = "zookeeper"
`

// k8s and dynamo are valid files with client-go's and the DynamoDB lock
// client's locks.
const (
	k8s    = "duration = \"30s\"\n[lock]\nalgorithm = \"k8s-lease\"\n"
	dynamo = "duration = \"30s\"\n[lock]\nalgorithm = \"dynamodb\"\n"
)

// TestErrors pins the message of each kind of problem: file, line, key and
// what would be valid. Each input has exactly one problem, so the test also
// pins that one mistake gives one error.
func TestErrors(t *testing.T) {
	oneErrorEach(t, []errorCase{
		{"unknown key", base + "bogus = 1\n", 4, "lock.bogus",
			"unknown key (valid in lock: preset, algorithm, key, ttl, request_timeout,"},
		{"unknown key, close to a valid one", base + "retires = 1\n", 4, "lock.retires",
			`unknown key; did you mean "retries"?`},
		{"unknown top-level key", "durations = \"1s\"\n" + base, 1, "durations",
			`did you mean "duration"? (valid at the top level: name, description,`},
		{"unknown table", base + "[locks]\n", 4, "locks", "unknown key;"},
		{"wrong case", "duration = \"30s\"\n[lock]\nTTL = \"10s\"\n", 3, "lock.TTL",
			`keys are case-sensitive: write "ttl"`},
		{"wrong case of a table", "duration = \"30s\"\n[Lock]\nttl = \"10s\"\n", 2, "Lock",
			`keys are case-sensitive: write "lock"`},
		{"bare integer duration", "duration = 30\n[lock]\nttl = \"10s\"\n", 1, "duration",
			`a duration is a string with a unit: write "30s"`},
		{"bare zero duration", base + "[workload]\nthink = 0\n", 5, "workload.think",
			`write "0s"`},
		{"bare float duration", base + "drift_const = 0.5\n", 4, "lock.drift_const",
			`write "0.5s"`},
		{"duration without a unit", base + "retry_delay = \"200\"\n", 4, "lock.retry_delay",
			`the string "200" is not a duration: write a number with a unit, like "250ms"`},
		{"wrong type", base + "[workload]\niterations = \"ten\"\n", 5, "workload.iterations",
			`must be an integer, got the string "ten"`},
		{"top-level key after a table header", base + "seed = 3\n", 4, "lock.seed",
			"a key after a [table] header belongs to that table: move seed above the first header"},
		{"table expected", "workload = 3\n" + base, 1, "workload", "must be a table, got the integer 3"},
		{"float where an integer goes", base + "retries = 2.5\n", 4, "lock.retries",
			"must be an integer, got the float 2.5"},
		{"integer where a string goes", base + "key = 5\n", 4, "lock.key",
			"must be a string, got the integer 5"},
		{"string where a boolean goes", base + "extend = \"yes\"\n", 4, "lock.extend",
			`must be true or false, got the string "yes"`},
		{"invalid enum", base + "algorithm = \"paxos\"\n", 4, "lock.algorithm",
			`unknown lock algorithm "paxos" (valid: single, failover, redlock, lease, zookeeper, k8s-lease, dynamodb, consul)`},
		{"debate without its claim", base + "[debate]\nby = [\"Kleppmann\"]\n", 4, "debate.claim",
			"required: the argument the scenario answers, in a sentence"},
		{"debate by nobody", base + "[debate]\nclaim = \"x\"\nby = []\n", 6, "debate.by",
			`must name at least one person, like ["Kleppmann"]`},
		{"debate by a string", base + "[debate]\nclaim = \"x\"\nby = \"antirez\"\n", 6, "debate.by",
			`must be an array of strings, got the string "antirez"`},
		{"debate answer without who", base + "[debate]\nclaim = \"x\"\nby = [\"a\"]\nanswer = \"y\"\n", 4, "debate.answer_by",
			`required with answer: who answered the claim`},
		{"debate key misspelt", base + "[debate]\nclaim = \"x\"\nby = [\"a\"]\nanswr = \"y\"\n", 7, "debate.answr",
			`did you mean "answer"?`},
		{"invalid preset", base + "preset = \"redissen\"\n", 4, "lock.preset",
			`unknown preset "redissen" (valid: consul-defaults, k8s-defaults, node-redlock, node-redlock-first-attempt-expiry, node-redlock-using, redisson, redisson-wait, redlock-py, redlock-py-connected-quorum, redlock-py-drift-sign, redsync, redsync-fail-fast)`},
		{"invalid persistence", base + "[nodes]\npersistence = \"aof\"\n", 5, "nodes.persistence",
			`unknown persistence "aof" (valid: none, everysec, always)`},
		{"invalid verdict", base + "[expect]\nmutex = \"unsafe\"\n", 5, "expect.mutex",
			`unknown verdict "unsafe" (valid: safe, violation)`},
		{"names and count", base + "[nodes]\ncount = 3\nnames = [\"a\", \"b\", \"c\"]\n", 6, "nodes.names",
			"give count or names, not both"},
		{"override of a missing node", base + "[[nodes.node]]\nname = \"n9\"\npersistence = \"always\"\n", 5, "nodes.node[0].name",
			`no node is called "n9" (nodes: n1, n2, n3, n4, n5)`},
		{"two overrides of one client", base + "[[clients.client]]\nname = \"c2\"\n[[clients.client]]\nname = \"c2\"\n", 7, "clients.client[1].name",
			"c2 already has an entry (clients.client[0], line 4)"},
		{"quorum unreachable", base + "quorum = 7\n", 4, "lock.quorum",
			"7 can never be reached with 5 nodes"},
		{"fault on a missing node", base + "[[faults]]\nat = \"1s\"\nkind = \"crash\"\ntarget = \"n9\"\n", 7, "faults[0].target",
			`no node is called "n9" (valid: n1, n2, n3, n4, n5)`},
		{"fault on the store without a lease", base + "[[faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"store\"\nfor = \"1s\"\n", 7, "faults[0].target",
			`the store exists only with algorithm = "lease"`},
		{"partition group with a missing endpoint", base + "[[faults]]\nat = \"1s\"\nkind = \"partition\"\npartition = \"groups\"\ngroups = [\n  [\"n1\", \"n2\"],\n  [\"n3\", \"x\"],\n]\n", 10, "faults[0].groups[1][1]",
			`no endpoint is called "x"`},
		{"link to a missing endpoint", base + "[[network.link]]\nfrom = \"n1\"\nto = \"n7\"\nloss = 0.5\n", 6, "network.link[0].to",
			`no endpoint is called "n7"`},
		{"ttl zero", "duration = \"30s\"\n[lock]\nttl = \"0s\"\n", 3, "lock.ttl", "must be positive, got 0s"},
		{"ttl missing", "duration = \"30s\"\n[lock]\nretries = 1\n", 2, "lock.ttl", `required: the lock's time to live, like "10s"`},
		{"ttl missing, no lock table", "duration = \"30s\"\n", 0, "lock.ttl", "required"},
		{"duration missing", "[lock]\nttl = \"1s\"\n", 0, "duration", "required"},
		{"duration beyond the horizon", "duration = \"1000000h\"\n[lock]\nttl = \"1s\"\n", 1, "duration",
			"must be within ±876000h0m0s (100 years), got 1000000h0m0s"},
		{"clock fault after the end", base + "[[faults]]\nat = \"800000h\"\nkind = \"clock-step\"\ntarget = \"n1\"\nby = \"1s\"\n", 5, "faults[0].at",
			"800000h0m0s is not before the end of the run (30s)"},
		{"fault after the end", base + "[[faults]]\nat = \"40s\"\nkind = \"heal\"\n", 5, "faults[0].at",
			"40s is not before the end of the run (30s)"},
		{"key foreign to a fault kind", base + "[[faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"c1\"\nfor = \"1s\"\nby = \"2s\"\n", 9, "faults[0].by",
			"a pause fault does not take by (pause takes: target, for, on_acquire)"},
		{"pause on acquisition of a node", base + "[[faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"n1\"\nfor = \"1s\"\non_acquire = true\n", 9, "faults[0].on_acquire",
			`only a client acquires the lock, and "n1" is not one (clients: c1, c2, c3)`},
		{"at_spread on a clock fault", base + "[[faults]]\nat = \"1s\"\nat_spread = \"1s\"\nkind = \"clock-step\"\ntarget = \"n1\"\nby = \"1s\"\n", 6, "faults[0].at_spread",
			"a clock fault is folded into its clock before the run, so its time cannot be drawn"},
		{"at_spread past the end", base + "[[faults]]\nat = \"20s\"\nat_spread = \"11s\"\nkind = \"crash\"\ntarget = \"n1\"\n", 6, "faults[0].at_spread",
			"at + at_spread = 31s is after the end of the run (30s)"},
		{"for_spread on a heal", base + "[[faults]]\nat = \"1s\"\nkind = \"heal\"\nfor_spread = \"1s\"\n", 7, "faults[0].for_spread",
			"a heal fault has no for, so no for_spread"},
		{"negative at_spread", base + "[[faults]]\nat = \"1s\"\nat_spread = \"-1s\"\nkind = \"heal\"\n", 6, "faults[0].at_spread",
			"must not be negative"},
		{"on_acquire on a node's crash", base + "[[faults]]\nat = \"1s\"\nkind = \"crash\"\ntarget = \"n1\"\non_acquire = true\n", 8, "faults[0].on_acquire",
			`only a client acquires the lock, and "n1" is not one (clients: c1, c2, c3)`},
		{"a client's crash with a restart", base + "[[faults]]\nat = \"1s\"\nkind = \"crash\"\ntarget = \"c1\"\non_acquire = true\n", 4, "faults[0].no_restart",
			`a crashed client does not restart: set no_restart = true for "c1"`},
		{"key a fault kind needs", base + "[[faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"c1\"\n", 4, "faults[0].for",
			`a pause fault needs for: how long, like "2s"`},
		{"invalid fault kind", base + "[[faults]]\nat = \"1s\"\nkind = \"meteor\"\n", 6, "faults[0].kind",
			`unknown fault kind "meteor" (valid: crash, power-loss, pause,`},
		{"target on a partition that is not isolate", base + "[[faults]]\nat = \"1s\"\nkind = \"partition\"\npartition = \"ring\"\ntarget = \"n1\"\n", 8, "faults[0].target",
			`only partition = "isolate" takes a target`},
		{"for with no_restart", base + "[[faults]]\nat = \"1s\"\nkind = \"crash\"\ntarget = \"n1\"\nno_restart = true\nfor = \"1s\"\n", 9, "faults[0].for",
			"no_restart = true never restarts the node"},
		{"foreign latency key", base + "[network]\nlatency = { kind = \"uniform\", min = \"1ms\", max = \"2ms\", value = \"1ms\" }\n", 5, "network.latency.value",
			"a uniform latency does not take value (uniform takes: min, max)"},
		{"foreign latency key in a table", base + "[network.latency]\nkind = \"constant\"\nvalue = \"1ms\"\n\nmean = \"1ms\"\n", 8, "network.latency.mean",
			"a constant latency does not take mean (constant takes: value)"},
		{"latency missing a key of its kind", base + "[network]\nlatency = { kind = \"uniform\", max = \"2ms\" }\n", 5, "network.latency.min",
			"a uniform latency needs min and max"},
		{"latency out of order", base + "[network]\nlatency = { kind = \"uniform\", min = \"3ms\", max = \"2ms\" }\n", 5, "network.latency",
			"uniform latency max 2ms is below min 3ms"},
		{"pause length missing", base + "[clients]\npauses = { every = \"5s\" }\n", 5, "clients.pauses.length",
			"required when every is set"},
		{"negative duration", base + "[workload]\nthink = \"-1s\"\n", 5, "workload.think", "must not be negative, got -1s"},
		{"signed by is fine, negative at is not", base + "[[faults]]\nat = \"-1s\"\nkind = \"clock-step\"\ntarget = \"n1\"\nby = \"-1s\"\n", 5, "faults[0].at",
			"must not be negative, got -1s"},
		{"zero that Redis would replace by its default", base + "[nodes]\nservice_time = \"0s\"\n", 5, "nodes.service_time",
			"must be positive, got 0s"},
		{"negative lease check interval", base + "[store]\nlease_check_every = \"-500ms\"\n", 5, "store.lease_check_every",
			"must be 0s (none) or at least 1ms, got -500ms"},
		{"lease check interval too short", base + "[store]\nlease_check_every = \"10us\"\n", 5, "store.lease_check_every",
			"must be 0s (none) or at least 1ms, got 10µs"},
		{"lease check interval past the horizon", base + "[store]\nlease_check_every = \"900000h\"\n", 5, "store.lease_check_every",
			"must be within ±876000h0m0s (100 years), got 900000h0m0s"},
		{"tokens key without incr tokens", base + "[resource]\ntoken_node = \"n2\"\n", 5, "resource.token_node",
			`only incr tokens use token_node; tokens is "none"`},
		{"keepalive without a lease", base + "keepalive = \"1s\"\n", 4, "lock.keepalive",
			"only lease takes keepalive (the others keep their lock by their own keys); this lock's algorithm is redlock"},
		{"a key of another algorithm", base + "session_timeout = \"6s\"\n", 4, "lock.session_timeout",
			"only zookeeper takes session_timeout; this lock's algorithm is redlock"},
		{"ttl on a lock timed by its own keys", zk + "ttl = \"10s\"\n", 4, "lock.ttl",
			"zookeeper is timed by session_timeout, not ttl"},
		{"session timeout above 20 ticks", zk + "session_timeout = \"50s\"\n", 4, "lock.session_timeout",
			"50s is outside ZooKeeper's bounds of 2 to 20 ticks, [4s, 40s] with tick 2s (minSessionTimeout and maxSessionTimeout, ZooKeeper Administrator's Guide)"},
		{"session timeout below 2 ticks", zk + "session_timeout = \"3s\"\ntick = \"2s\"\n", 4, "lock.session_timeout",
			"3s is outside ZooKeeper's bounds of 2 to 20 ticks, [4s, 40s] with tick 2s"},
		{"unknown error policy", zk + "error_policy = \"lenient\"\n", 4, "lock.error_policy",
			`unknown error policy "lenient" (valid: standard, session)`},
		{"tokens of another algorithm's store", "duration = \"30s\"\n[lock]\nalgorithm = \"lease\"\nttl = \"2s\"\n[resource]\ntokens = \"zxid\"\n", 6, "resource.tokens",
			"zxid tokens come from zookeeper's store; this lock's algorithm is lease"},
		{"a key two other algorithms take", base + "lease_duration = \"15s\"\n", 4, "lock.lease_duration",
			"only k8s-lease and dynamodb take lease_duration; this lock's algorithm is redlock"},
		{"lock_delay with redlock", base + "lock_delay = \"15s\"\n", 4, "lock.lock_delay",
			"only consul takes lock_delay; this lock's algorithm is redlock"},
		{"consul session ttl below Consul's minimum", "duration = \"30s\"\n[lock]\nalgorithm = \"consul\"\nsession_ttl = \"5s\"\n", 4, "lock.session_ttl",
			"5s is outside Consul's bounds of 10s to 24h"},
		{"renew deadline not below the lease", k8s + "renew_deadline = \"15s\"\n", 4, "lock.renew_deadline",
			"15s must be below lease_duration 15s (client-go's NewLeaderElector: leaseDuration must be greater than renewDeadline)"},
		{"heartbeat over half the lease", dynamo + "heartbeat_period = \"11s\"\n", 4, "lock.heartbeat_period",
			`11s must be at most half of lease_duration 20s, 10s (AmazonDynamoDBLockClient: "Heartbeat period must be no more than half the length of the Lease Duration")`},
		{"a lease check interval for sessions", zk + "[store]\nlease_check_every = \"1s\"\n", 5, "store.lease_check_every",
			"zookeeper expires its sessions in buckets of lock.tick; it takes no lease check interval"},
		{"fencing without tokens (model)", base + "[resource]\nmode = \"fencing\"\n", 5, "resource.mode",
			"fencing needs tokens (incr or revision)"},
		{"retry jitter above delay (model)", base + "retry_delay = \"100ms\"\nretry_jitter = \"200ms\"\n", 4, "lock.retry_delay",
			"need 0 <= jitter <= delay, got delay 100ms jitter 200ms"},
		{"election without a store (model)", base + "[[faults]]\nat = \"1s\"\nkind = \"election\"\nfor = \"1s\"\n", 4, "faults[0]",
			`an election means nothing with algorithm = "redlock": only the consensus store has a leader to lose`},
		{"shared node clock (model key mapped)", base + "[nodes]\nclock = { rate_ppm = 90000, rate_spread_ppm = 20000 }\n", 5, "nodes.clock.rate_spread_ppm",
			"rate_ppm 90000 ± rate_spread_ppm 20000 can leave ±100000 ppm"},
		{"clock steps out of order", base + "[clients.clock]\nsteps = [\n  { at = \"2s\", by = \"1s\" },\n  { at = \"1s\", by = \"1s\" },\n]\n", 7, "clients.clock.steps[1].at",
			"steps[1].at 1s is before steps[0].at 2s"},
		{"clock fault inside a slew", base + "[[faults]]\nat = \"1s\"\nkind = \"clock-slew\"\ntarget = \"n3\"\nby = \"10s\"\n[[faults]]\nat = \"2s\"\nkind = \"clock-step\"\ntarget = \"n3\"\nby = \"1s\"\n", 9, "faults[1]",
			"this clock-step makes n3's clock invalid"},
		{"a client named like a node", base + "[nodes]\nnames = [\"a\", \"c2\"]\n", 5, "nodes.names[1]",
			`"c2" names both a node and a client`},
		{"a reserved name", base + "[clients]\nnames = [\"a\", \"resource\"]\n", 5, "clients.names[1]",
			`the name "resource" belongs to the resource`},
		{"no clients", base + "[clients]\ncount = 0\n", 5, "clients.count", "must be between 1 and 1000, got 0"},
		{"bad name", base + "[clients]\nnames = [\"a b\"]\n", 5, "clients.names[0]", `"a b" is not a valid name`},
		{"loss out of range", base + "[network]\nloss = 1.0\n", 5, "network.loss", "must be in [0, 1), got 1"},
		{"unknown partition mode", base + "[network]\npartition_mode = \"keep\"\n", 5, "network.partition_mode",
			`unknown partition mode "keep"; want drop or hold`},
		{"partition mode not a string", base + "[network]\npartition_mode = 1\n", 5, "network.partition_mode", "must be a string"},
		{"retransmit limit zero", base + "[network]\npartition_mode = \"hold\"\nretransmit_limit = \"0s\"\n", 6, "network.retransmit_limit", "must be positive"},
		{"nan", base + "drift_factor = nan\n", 4, "lock.drift_factor", "must be a finite number, got NaN"},
		{"date-time", base + "retries = 1979-05-27\n", 4, "lock.retries", "must be an integer, got a date-time"},
		{"invalid TOML", base + "retries = = 1\n", 4, "lock.retries", "invalid TOML:"},
		{"duplicate key", base + "ttl = \"5s\"\n", 4, "lock.ttl", "invalid TOML: Key 'lock.ttl' has already been defined"},
		{"unquoted duration", base + "retry_delay = 8s\n", 4, "lock.retry_delay", `a duration is a string: write retry_delay = "8s", with the quotes`},
		{"unquoted duration in an array table", base + "[[faults]]\nat = 1m30s # when\n", 5, "faults.at", `write at = "1m30s", with the quotes`},
		{"unquoted word is not a duration", base + "retry_delay = fast\n", 4, "lock.retry_delay", "invalid TOML: expected value"},
		{"after a multi-line string", "lesson = \"\"\"\nline\n[lock]\nttl = 1\n\"\"\"\n" + base + "retries = \"x\"\n", 9, "lock.retries",
			`must be an integer, got the string "x"`},
		{"dotted keys", "duration = \"30s\"\nlock.ttl = \"10s\"\nlock.quorum = -1\n", 3, "lock.quorum", "must not be negative, got -1"},
		{"inline array of faults", "faults = [\n  { at = \"1s\", kind = \"heal\" },\n  { at = \"2s\", kind = \"heal\", for = \"1s\" },\n]\n" + base, 3, "faults[1].for",
			"a heal fault does not take for (heal takes: nothing but at and kind)"},
		{"replica of a missing node (model, through the entry)", base + "[[nodes.node]]\nname = \"n2\"\nreplica_of = \"n9\"\n", 6, "nodes.node[0].replica_of",
			`no node is called "n9"`},
		{"duration that overflows", base + "retry_delay = \"99999999999999999999h\"\n", 4, "lock.retry_delay",
			`the duration "99999999999999999999h" is too large: at most 876000h0m0s (100 years)`},
		{"duration that overflows in its fraction's units", "duration = \"9223372036854775808ns\"\n[lock]\nttl = \"10s\"\n", 1, "duration",
			`is too large: at most 876000h0m0s`},
		{"long overflowing duration, cut", base + "retry_delay = \"" + strings.Repeat("9", 100) + "s\"\n", 4, "lock.retry_delay",
			`the duration "9999999999999999"…"9999999s" (101 bytes) is too large`},
		{"description too long", "description = \"" + strings.Repeat("x", 501) + "\"\n" + base, 1, "description",
			"is 501 bytes long: at most 500 bytes for a description (one line; put more in lesson)"},
		{"lesson too long", "lesson = \"" + strings.Repeat("x", 16<<10+1) + "\"\n" + base, 1, "lesson",
			"is 16385 bytes long: at most 16384 bytes for a text field"},
		{"name too long", "name = \"" + strings.Repeat("n", 65) + "\"\n" + base, 1, "name",
			"is 65 bytes long: at most 64 bytes for a name"},
		{"override of an override's clock", base + "[[nodes.node]]\nname = \"n1\"\n[nodes.node.clock]\noffset = 5\n", 7, "nodes.node[0].clock.offset",
			`write "5s"`},
	})
}

// TestSeveralErrors: problems across the file are all reported, in line
// order, joined.
func TestSeveralErrors(t *testing.T) {
	src := `duration = 30
[lock]
TTL = "10s"
algorithm = "paxos"
[workload]
iterations = "ten"
[[faults]]
at = "1s"
kind = "pause"
by = "1s"
`
	_, err := Parse("many.toml", []byte(src))
	want := []string{
		`many.toml:1: duration: a duration is a string with a unit: write "30s" or "30ms", not the bare number 30`,
		`many.toml:3: lock.TTL: keys are case-sensitive: write "ttl"`,
		`many.toml:4: lock.algorithm: unknown lock algorithm "paxos" (valid: single, failover, redlock, lease, zookeeper, k8s-lease, dynamodb, consul)`,
		`many.toml:6: workload.iterations: must be an integer, got the string "ten"`,
		`many.toml:7: faults[0].target: required: a pause fault needs target: the process or endpoint it hits`,
		`many.toml:7: faults[0].for: required: a pause fault needs for: how long, like "2s"`,
		`many.toml:10: faults[0].by: a pause fault does not take by (pause takes: target, for, on_acquire)`,
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	// The same input gives the same errors in the same order every time.
	for range 20 {
		_, again := Parse("many.toml", []byte(src))
		if again.Error() != err.Error() {
			t.Fatalf("errors differ between runs:\n%v\n%v", err, again)
		}
	}
}

func TestErrorString(t *testing.T) {
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{File: "a.toml", Line: 12, Key: "lock.ttl", Msg: "must be positive, got 0s"}, "a.toml:12: lock.ttl: must be positive, got 0s"},
		{Error{File: "a.toml", Key: "lock.ttl", Msg: "required"}, "a.toml: lock.ttl: required"},
		{Error{File: "a.toml", Line: 3, Msg: "invalid TOML: x"}, "a.toml:3: invalid TOML: x"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestModelErrorMapping feeds typed model problems through the mapping
// from Config paths to file keys, including ones the loader's own checks
// now catch first.
func TestModelErrorMapping(t *testing.T) {
	src := base + `[nodes]
count = 3
clock = { rate_ppm = 5 }
[[nodes.node]]
name = "n2"
persistence = "always"
[[network.link]]
from = "n1"
to = "n2"
loss = 0.1
`
	pos, err := tomlpos.Scan(src)
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{file: "m.toml", pos: pos, origins: map[string]origin{}}
	d.scenario(mustDecode(t, src))
	if len(d.errs) != 0 {
		t.Fatalf("decoding: %v", d.result())
	}
	at := func(p model.Path, subject, msg string) error {
		return &model.FieldError{Path: p, Subject: subject, Err: errors.New(msg)}
	}
	inner := func(node int, name string) []error {
		return []error{
			at(field.Of("Nodes", node, "Redis", "FsyncEvery"), name, "must be positive, got -1s"),
			at(field.Of("Nodes", node, "Redis", "ServiceTime"), name, "must be positive, got -1s"),
		}
	}
	d.modelErrors(errors.Join(slices.Concat(
		[]error{at(field.Of("Nodes", 2, "Clock"), "n3", "clocks: rate_ppm 5e6 ppm is outside ±100000 ppm")},
		inner(1, "n2"),
		inner(0, "n1"),
		[]error{
			at(field.Of("Network", "Links", 0, "Loss"), "", "must be in [0, 1), got 2"),
			at(field.Of("Lock", "RetryDelay"), "", "need 0 <= jitter <= delay"),
			errors.New("something without a key"),
		},
	)...))
	var got []string
	for _, e := range d.errs {
		got = append(got, e.Error())
	}
	want := []string{
		"m.toml:6: nodes.clock: for n3: clocks: rate_ppm 5e6 ppm is outside ±100000 ppm",
		"m.toml:7: nodes.node[0].fsync_every: must be positive, got -1s",
		"m.toml:7: nodes.node[0].service_time: must be positive, got -1s",
		"m.toml:4: nodes.fsync_every: for n1: must be positive, got -1s",
		"m.toml:4: nodes.service_time: for n1: must be positive, got -1s",
		"m.toml:13: network.link[0].loss: must be in [0, 1), got 2",
		"m.toml:2: lock.retry_delay: need 0 <= jitter <= delay",
		"m.toml: something without a key",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBareDurationHintIsValid: the hint for a bare number suggests that
// number with a unit only where that is a valid duration; it suggested
// "-Infs" and "1e+308s".
func TestBareDurationHintIsValid(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"30", `a duration is a string with a unit: write "30s" or "30ms", not the bare number 30`},
		{"1.5", `a duration is a string with a unit: write "1.5s" or "1.5ms", not the bare number 1.5`},
		{"-inf", `a duration is a string with a unit, like "250ms" or "10s" (at most 876000h0m0s), not the bare number -Inf`},
		{"1e308", `a duration is a string with a unit, like "250ms" or "10s" (at most 876000h0m0s), not the bare number 1e+308`},
		{"nan", `a duration is a string with a unit, like "250ms" or "10s" (at most 876000h0m0s), not the bare number NaN`},
		{"9223372036854775807", `a duration is a string with a unit, like "250ms" or "10s" (at most 876000h0m0s), not the bare number 9223372036854775807`},
	} {
		_, err := Parse("d.toml", []byte("duration = "+c.value+"\n"))
		if err == nil {
			t.Fatalf("duration = %s: no error", c.value)
		}
		if got, want := strings.SplitN(err.Error(), "\n", 2)[0], "d.toml:1: duration: "+c.want; got != want {
			t.Errorf("duration = %s:\ngot  %s\nwant %s", c.value, got, want)
		}
	}
}
