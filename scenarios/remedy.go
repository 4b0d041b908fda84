package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
)

// Remedy is one of the debate's answers to an unsafe lock, as overrides on
// a scenario file: fencing tokens, compare-and-set at the resource, a
// monotonic validity check, delayed restart, fsync always, WAIT before use.
type Remedy struct {
	Name string
	// Who argued for it, and what it does, in a few words.
	Summary string
	plan    func(b *Base, sc *Scenario) (sets []Override, why string)
}

// remedyFile is the File of a remedy's overrides, which problems with them
// name.
const remedyFile = "--what-if"

// Remedies are the remedies in the order a what-if table lists them.
var Remedies = []Remedy{
	{Name: "fencing", Summary: "Kleppmann: the resource rejects a token lower than one it has seen", plan: planFencing},
	{Name: "cas", Summary: "antirez: the resource compares the lock's random value (compare-and-set)", plan: planCAS},
	{Name: "monotonic", Summary: "antirez: the client subtracts the elapsed time, measured on its monotonic clock", plan: planMonotonic},
	{Name: "delayed-restart", Summary: "the distlock page: a crashed node stays down a bit longer than the TTL", plan: planDelayedRestart},
	{Name: "fsync-always", Summary: "the distlock page: AOF with appendfsync always on every node", plan: planFsyncAlways},
	{Name: "wait", Summary: "failover: WAIT for a replica before using the lock", plan: planWait},
}

// RemedyNames lists the remedies' names.
func RemedyNames() []string {
	var out []string
	for _, r := range Remedies {
		out = append(out, r.Name)
	}
	return out
}

// ParseRemedies reads a comma-separated list of remedy names; "all" names
// every remedy. Order follows Remedies, duplicates collapse.
func ParseRemedies(list string) ([]Remedy, error) {
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "all" {
			return slices.Clone(Remedies), nil
		}
		if !slices.Contains(RemedyNames(), n) {
			return nil, fmt.Errorf("--what-if: unknown remedy %q (valid: %s, or all)", n, strings.Join(RemedyNames(), ", "))
		}
		want[n] = true
	}
	var out []Remedy
	for _, r := range Remedies {
		if want[r.Name] {
			out = append(out, r)
		}
	}
	return out, nil
}

// Plan returns the overrides that apply the remedy to sc, loaded from b
// (with overrides of its own, which the remedy's go after), or why it does
// not apply: a remedy that cannot change the scenario (fencing where the
// resource checks tokens already) does not apply. It is an error for sc to
// have a fault of a kind faultRemedies has no entry for.
func (r Remedy) Plan(b *Base, sc *Scenario) ([]Override, string, error) {
	for _, f := range sc.Config.Faults {
		if _, ok := faultRemedies[f.Kind]; !ok {
			return nil, "", fmt.Errorf("remedy %s: the what-ifs have no rule for a %v fault (scenarios/remedy.go's faultRemedies)", r.Name, f.Kind)
		}
	}
	sets, why := r.plan(b, sc)
	return sets, why, nil
}

// faultRemedy is what the remedies that act on faults do with a fault of
// one kind.
type faultRemedy struct {
	// restarts: the fault takes a Redis node down and restarts it after
	// For (unless NoRestart), forgetting what its persistence lost;
	// delayed-restart lengthens For, fsync-always keeps what it would lose.
	restarts bool
}

// faultRemedies is the table of every fault kind, by its constant: a kind
// without an entry makes Remedy.Plan refuse the scenario, and
// TestEveryFaultKindHasARemedyRule fails.
var faultRemedies = map[model.FaultKind]faultRemedy{
	model.Crash:     {restarts: true},
	model.PowerLoss: {restarts: true},
	model.Pause:     {},
	model.ClockStep: {},
	model.ClockRate: {},
	model.ClockSlew: {},
	model.Partition: {},
	model.Heal:      {},
	model.Spike:     {},
	model.Loss:      {},
	model.Election:  {},
	model.Cut:       {},
	// One message, held or dropped: no node goes down.
	model.HoldMessage: {},
	model.DropMessage: {},
}

func remedySet(key string, value any) Override {
	return Override{Key: key, Value: value, File: remedyFile}
}

func planFencing(_ *Base, sc *Scenario) ([]Override, string) {
	c := sc.Config
	if c.Resource.Mode == resource.Fencing {
		return nil, "the resource already checks fencing tokens"
	}
	sets := []Override{remedySet("resource.mode", "fencing")}
	// The lease lock's tokens are etcd's lock key revision (Jepsen's
	// remedy); Redlock issues none, so an INCR on the first node.
	if tokens := c.Lock.Algorithm.Tokens(); c.Work.Tokens != tokens {
		sets = append(sets, remedySet("resource.tokens", tokens.String()))
	}
	return sets, ""
}

func planCAS(_ *Base, sc *Scenario) ([]Override, string) {
	if sc.Config.Resource.Mode == resource.CompareAndSet {
		return nil, "the resource already compares lock values"
	}
	return []Override{remedySet("resource.mode", "compare-and-set")}, ""
}

func planMonotonic(_ *Base, sc *Scenario) ([]Override, string) {
	l := sc.Config.Lock
	if !l.Algorithm.Elapsed() {
		return nil, "the lease lock has no client-side validity check"
	}
	var sets []Override
	if l.ElapsedClock != proto.Mono {
		sets = append(sets, remedySet("lock.elapsed_clock", "monotonic"))
	}
	if !l.ValidityCheck {
		sets = append(sets, remedySet("lock.validity_check", true))
	}
	if len(sets) == 0 {
		return nil, "the client already checks validity on its monotonic clock"
	}
	return sets, ""
}

// nodeCrashes lists the indices of the faults that take a Redis node down
// and restart it.
func nodeCrashes(c model.Config) []int {
	nodes := map[string]bool{}
	for _, n := range c.Nodes {
		nodes[n.Name] = true
	}
	var out []int
	for i, f := range c.Faults {
		if faultRemedies[f.Kind].restarts && nodes[f.Target] && !f.NoRestart {
			out = append(out, i)
		}
	}
	return out
}

func planDelayedRestart(_ *Base, sc *Scenario) ([]Override, string) {
	c := sc.Config
	if c.Lock.Algorithm.Store() {
		return nil, "the lease lock runs on a consensus store, not on Redis nodes"
	}
	// "A bit more than the max TTL": every key the node held has expired
	// everywhere before it answers again. 10% plus a second covers any
	// clock rate error a scenario may give the nodes (at most 10%).
	delay := c.Lock.TTL + c.Lock.TTL/10 + time.Second
	var sets []Override
	for _, i := range nodeCrashes(c) {
		if c.Faults[i].For < delay {
			sets = append(sets, remedySet(fmt.Sprintf("faults[%d].for", i), delay.String()))
		}
	}
	if len(sets) == 0 {
		return nil, "no node crashes and restarts within a TTL"
	}
	return sets, ""
}

func planFsyncAlways(b *Base, sc *Scenario) ([]Override, string) {
	c := sc.Config
	if c.Lock.Algorithm.Store() {
		return nil, "the lease lock runs on a consensus store, not on Redis nodes"
	}
	if len(nodeCrashes(c)) == 0 {
		return nil, "no node crashes"
	}
	if !slices.ContainsFunc(c.Nodes, func(n model.NodeConfig) bool { return n.Redis.Persistence != redis.AOFAlways }) {
		return nil, "every node already fsyncs before replying"
	}
	sets := []Override{remedySet("nodes.persistence", "always")}
	for i := range b.nodeTables() { // a node's own table wins over [nodes]
		sets = append(sets, remedySet(fmt.Sprintf("nodes.node[%d].persistence", i), "always"))
	}
	return sets, ""
}

func planWait(_ *Base, sc *Scenario) ([]Override, string) {
	l := sc.Config.Lock
	if !l.Algorithm.Waits() {
		return nil, "only the failover lock has replicas to WAIT for"
	}
	if l.WaitReplicas > 0 {
		return nil, "the clients already WAIT for a replica"
	}
	return []Override{remedySet("lock.wait_replicas", int64(1))}, ""
}

// nodeTables is how many [[nodes.node]] tables the file as written has,
// which the decoded Config no longer tells.
func (b *Base) nodeTables() int {
	nodes, _ := b.raw["nodes"].(map[string]any)
	elems, _ := tomldoc.TableArray(nodes["node"])
	return len(elems)
}
