package whatif

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Remedy is one of the debate's answers to an unsafe lock.
type Remedy struct {
	Name string
	// Who argued for it, and what it does, in a few words.
	Summary string
	// plan returns the overrides that apply the remedy to sc, or a reason
	// why it does not apply.
	plan func(sc *scenarios.Scenario, f fileFacts) (sets []string, why string)
}

// fileFacts is what a remedy needs from the scenario file as written, which
// the decoded Config no longer tells: how many per-node tables it has.
type fileFacts struct {
	nodeTables int // entries of [[nodes.node]]
}

// Remedies are the remedies in the order the table lists them.
var Remedies = []Remedy{
	{Name: "fencing", Summary: "Kleppmann: the resource rejects a token lower than one it has seen", plan: planFencing},
	{Name: "cas", Summary: "antirez: the resource compares the lock's random value (compare-and-set)", plan: planCAS},
	{Name: "monotonic", Summary: "antirez: the client subtracts the elapsed time, measured on its monotonic clock", plan: planMonotonic},
	{Name: "delayed-restart", Summary: "the distlock page: a crashed node stays down a bit longer than the TTL", plan: planDelayedRestart},
	{Name: "fsync-always", Summary: "the distlock page: AOF with appendfsync always on every node", plan: planFsyncAlways},
	{Name: "wait", Summary: "failover: WAIT for a replica before using the lock", plan: planWait},
}

// Names lists the remedies' names.
func Names() []string {
	var out []string
	for _, r := range Remedies {
		out = append(out, r.Name)
	}
	return out
}

// Parse reads a comma-separated list of remedy names; "all" names every
// remedy. Order follows Remedies, duplicates collapse.
func Parse(list string) ([]Remedy, error) {
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "all" {
			return slices.Clone(Remedies), nil
		}
		if !slices.Contains(Names(), n) {
			return nil, fmt.Errorf("--what-if: unknown remedy %q (valid: %s, or all)", n, strings.Join(Names(), ", "))
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

func planFencing(sc *scenarios.Scenario, _ fileFacts) ([]string, string) {
	c := sc.Config
	if c.Resource.Mode == resource.Fencing {
		return nil, "the resource already checks fencing tokens"
	}
	sets := []string{"resource.mode=fencing"}
	switch {
	case c.Lock.Algorithm == client.Lease && c.Work.Tokens != client.RevisionToken:
		sets = append(sets, "resource.tokens=revision") // etcd's lock key revision (Jepsen's remedy)
	case c.Lock.Algorithm != client.Lease && c.Work.Tokens != client.IncrToken:
		sets = append(sets, "resource.tokens=incr") // Redlock issues none; an INCR on the first node
	}
	return sets, ""
}

func planCAS(sc *scenarios.Scenario, _ fileFacts) ([]string, string) {
	if sc.Config.Resource.Mode == resource.CompareAndSet {
		return nil, "the resource already compares lock values"
	}
	return []string{"resource.mode=compare-and-set"}, ""
}

func planMonotonic(sc *scenarios.Scenario, _ fileFacts) ([]string, string) {
	l := sc.Config.Lock
	if l.Algorithm == client.Lease {
		return nil, "the lease lock has no client-side validity check"
	}
	var sets []string
	if l.ElapsedClock != proto.Mono {
		sets = append(sets, "lock.elapsed_clock=monotonic")
	}
	if !l.ValidityCheck {
		sets = append(sets, "lock.validity_check=true")
	}
	if len(sets) == 0 {
		return nil, "the client already checks validity on its monotonic clock"
	}
	return sets, ""
}

// nodeCrashes lists the indices of the faults that crash a Redis node and
// restart it.
func nodeCrashes(c model.Config) []int {
	nodes := map[string]bool{}
	for _, n := range c.Nodes {
		nodes[n.Name] = true
	}
	var out []int
	for i, f := range c.Faults {
		if (f.Kind == model.Crash || f.Kind == model.PowerLoss) && nodes[f.Target] && !f.NoRestart {
			out = append(out, i)
		}
	}
	return out
}

func planDelayedRestart(sc *scenarios.Scenario, _ fileFacts) ([]string, string) {
	c := sc.Config
	if c.Lock.Algorithm == client.Lease {
		return nil, "the lease lock runs on a consensus store, not on Redis nodes"
	}
	// "A bit more than the max TTL": every key the node held has expired
	// everywhere before it answers again. 10% plus a second covers any
	// clock rate error a scenario may give the nodes (at most 10%).
	delay := c.Lock.TTL + c.Lock.TTL/10 + time.Second
	var sets []string
	for _, i := range nodeCrashes(c) {
		if c.Faults[i].For < delay {
			sets = append(sets, fmt.Sprintf("faults[%d].for=%s", i, delay))
		}
	}
	if len(sets) == 0 {
		return nil, "no node crashes and restarts within a TTL"
	}
	return sets, ""
}

func planFsyncAlways(sc *scenarios.Scenario, f fileFacts) ([]string, string) {
	c := sc.Config
	if c.Lock.Algorithm == client.Lease {
		return nil, "the lease lock runs on a consensus store, not on Redis nodes"
	}
	if len(nodeCrashes(c)) == 0 {
		return nil, "no node crashes"
	}
	if !slices.ContainsFunc(c.Nodes, func(n model.NodeConfig) bool { return n.Redis.Persistence != redis.AOFAlways }) {
		return nil, "every node already fsyncs before replying"
	}
	sets := []string{"nodes.persistence=always"}
	for i := range f.nodeTables { // a node's own table wins over [nodes]
		sets = append(sets, fmt.Sprintf("nodes.node[%d].persistence=always", i))
	}
	return sets, ""
}

func planWait(sc *scenarios.Scenario, _ fileFacts) ([]string, string) {
	l := sc.Config.Lock
	if l.Algorithm != client.Failover {
		return nil, "only the failover lock has replicas to WAIT for"
	}
	if l.WaitReplicas > 0 {
		return nil, "the clients already WAIT for a replica"
	}
	return []string{"lock.wait_replicas=1"}, ""
}

// Row is one line of the verdict table.
type Row struct {
	Remedy  string   // "as written" for the scenario itself
	Sets    []string // the overrides on top of the user's own
	Applies bool
	Why     string // why the remedy does not apply
	Result  model.Result
	Replay  string // the command that replays this row
}

// Table replays the scenario arg (a library name or a file) with the
// user's overrides sets, once as written and once per remedy that
// applies, all at seed. replay builds a row's command from its full
// override list.
func Table(arg string, sets []string, seed uint64, remedies []Remedy, replay func(sets []string) string) ([]Row, error) {
	sc, err := load(arg, sets)
	if err != nil {
		return nil, err
	}
	facts, err := readFacts(arg)
	if err != nil {
		return nil, err
	}
	res, err := sc.Plan.RunFastWithin(seed, 0)
	if err != nil {
		return nil, err
	}
	rows := []Row{{Remedy: "as written", Applies: true, Result: res, Replay: replay(sets)}}
	for _, r := range remedies {
		extra, why := r.plan(sc, facts)
		row := Row{Remedy: r.Name, Sets: extra, Applies: why == "", Why: why}
		if row.Applies {
			all := slices.Concat(sets, extra)
			rsc, err := load(arg, all)
			if err != nil {
				return nil, fmt.Errorf("remedy %s: %w", r.Name, err)
			}
			if row.Result, err = rsc.Plan.RunFastWithin(seed, 0); err != nil {
				return nil, fmt.Errorf("remedy %s: %w", r.Name, err)
			}
			row.Replay = replay(all)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func load(arg string, sets []string) (*scenarios.Scenario, error) {
	o, err := scenarios.ParseOverrides(sets)
	if err != nil {
		return nil, err
	}
	return scenarios.LoadNamedWith(arg, o)
}

func readFacts(arg string) (fileFacts, error) {
	var data []byte
	if scenarios.IsFile(arg) {
		var err error
		if data, err = os.ReadFile(arg); err != nil {
			return fileFacts{}, err
		}
	} else {
		var ok bool
		if data, ok = scenarios.LibraryFile(arg); !ok {
			return fileFacts{}, fmt.Errorf("no built-in scenario is called %q", arg)
		}
	}
	var raw struct {
		Nodes struct {
			Node []map[string]any `toml:"node"`
		} `toml:"nodes"`
	}
	// The file has loaded already, so it is valid TOML; only the shape is read.
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return fileFacts{}, err
	}
	return fileFacts{nodeTables: len(raw.Nodes.Node)}, nil
}

// Availability says in a few words how available the lock was.
func Availability(r model.Result) string {
	rep := r.Report
	return fmt.Sprintf("%d/%d acquired, longest outage %v", rep.AcquireSuccesses, rep.AcquireAttempts, rep.LongestOutage.Round(time.Millisecond))
}
