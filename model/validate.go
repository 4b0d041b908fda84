package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim/field"
)

// FieldError is one problem with a Config: the field's Path in Go terms
// (Nodes[2].Clock.Steps[1].At), the Subject it belongs to (the node "n3"),
// and the cause. Validate and Compile return only these, joined with
// errors.Join; use errors.As or FieldErrors to get at them.
type FieldError = field.Error

// Path names a Config field in Go terms; see FieldError.
type Path = field.Path

// FieldErrors lists the *FieldErrors in an error Validate or Compile
// returned.
func FieldErrors(err error) []*FieldError { return field.List(nil, "", err) }

// Validate checks the whole configuration, across fields too: each rule
// lives here once, and every problem is a *FieldError.
func (c *Config) Validate() error {
	_, err := Compile(c)
	return err
}

// validator collects the problems of one Config. Its world is the set of
// names that will exist, so that every check across fields reads the same
// lists the world is built from.
type validator struct {
	c         *Config
	errs      []error
	nodes     []string
	clients   []string
	processes []string // what a clock fault can hit
	endpoints []string // what the network connects, and what a pause can hit
}

func (v *validator) add(path Path, format string, a ...any) *FieldError {
	e := field.Errorf(path, format, a...)
	v.errs = append(v.errs, e)
	return e
}

// under adds the problems err (from a part's own Validate) reports, moved
// under path.
func (v *validator) under(path Path, subject string, err error) {
	for _, e := range field.List(path, subject, err) {
		v.errs = append(v.errs, e)
	}
}

func newValidator(c *Config) *validator {
	v := &validator{c: c}
	for _, n := range c.Nodes {
		v.nodes = append(v.nodes, n.Name)
	}
	for _, cl := range c.Clients {
		v.clients = append(v.clients, cl.Name)
	}
	v.processes = slices.Concat(v.nodes, v.clients)
	if c.Lock.Algorithm.Store() {
		v.processes = append(v.processes, "store")
	}
	v.endpoints = append(slices.Clone(v.processes), "resource")
	if c.Lock.Algorithm.Sentinel() {
		v.endpoints = append(v.endpoints, "sentinel")
	}
	return v
}

// validate runs every rule; the clocks are checked with their faults folded
// in only when everything else holds, as a fault on a missing process or
// after the end has no clock to fold into.
func (v *validator) validate() error {
	c := v.c
	if c.Duration <= 0 {
		v.add(field.Of("Duration"), "must be positive, got %v", c.Duration)
	}
	v.under(field.Of("Lock"), "", c.Lock.Validate())
	v.under(field.Of("Work"), "", c.Work.Validate())
	v.names()
	for i, n := range c.Nodes {
		path := field.Of("Nodes", i)
		v.under(path.Join(field.Of("Clock")), n.Name, n.Clock.Validate())
		v.under(path.Join(field.Of("Redis")), n.Name, n.Redis.Validate())
		v.spread(path, n.Name, n.RateSpread)
		switch r := n.Redis.ReplicaOf; {
		case r == "":
		case r == n.Name:
			v.add(path.Join(field.Of("Redis", "ReplicaOf")), "a node cannot replicate itself").Subject = n.Name
		case !slices.Contains(v.nodes, r):
			v.add(path.Join(field.Of("Redis", "ReplicaOf")), "%s", v.unknown(r, "node", v.nodes)).Subject = n.Name
		}
	}
	if len(c.Clients) == 0 {
		v.add(field.Of("Clients"), "need at least one client")
	}
	for i, cl := range c.Clients {
		path := field.Of("Clients", i)
		v.under(path.Join(field.Of("Clock")), cl.Name, cl.Clock.Validate())
		v.spread(path, cl.Name, cl.RateSpread)
		if cl.StartIn < 0 {
			v.add(path.Join(field.Of("StartIn")), "must not be negative").Subject = cl.Name
		}
		if cl.Pauses.Every < 0 {
			v.add(path.Join(field.Of("Pauses", "Every")), "must not be negative").Subject = cl.Name
		}
		for j, at := range cl.Pauses.Arrivals {
			if cl.Pauses.Every <= 0 || at < 0 || j > 0 && at <= cl.Pauses.Arrivals[j-1] {
				v.add(path.Join(field.Of("Pauses", "Arrivals")), "must be strictly increasing from 0, with every > 0").Subject = cl.Name
				break
			}
		}
		// A length given without every is still checked: the loader
		// leaves the length's rules (a negative sigma) to this one check.
		if cl.Pauses.Every > 0 || cl.Pauses.Length.Kind != 0 {
			v.under(path.Join(field.Of("Pauses", "Length")), cl.Name, cl.Pauses.Length.Validate())
		}
	}
	v.algorithm()
	v.resource()
	v.network()
	for i, f := range c.Faults {
		v.fault(i, f)
	}
	if len(v.errs) == 0 {
		v.foldedClocks()
	}
	return errors.Join(v.errs...)
}

// fixedEndpoints are the endpoints a Config does not name. Their names are
// reserved whatever the algorithm, so that a scenario reads the same
// whatever its lock.
var fixedEndpoints = []struct{ name, what string }{
	{"resource", "the resource"}, {"store", "the store"}, {"sentinel", "the sentinel"},
}

// names checks that node and client names are set, unique across both, and
// not one of the fixed endpoints'.
func (v *validator) names() {
	seen := make(map[string]Path)
	check := func(list string, i int, name string) {
		path := field.Of(list, i, "Name")
		if name == "" {
			v.add(path, "a name must not be empty")
			return
		}
		for _, f := range fixedEndpoints {
			if name == f.name {
				v.add(path, "the name %q belongs to %s; choose another", name, f.what)
				return
			}
		}
		prev, dup := seen[name]
		if !dup {
			seen[name] = path
			return
		}
		e := v.add(path, "%q names both a node and a client; names must be unique across nodes and clients", name)
		if prev[0].Name == list {
			e.Err = fmt.Errorf("%q names two %s; names must be unique", name, strings.ToLower(list))
		}
		e.Other = prev
	}
	for i, n := range v.c.Nodes {
		check("Nodes", i, n.Name)
	}
	for i, cl := range v.c.Clients {
		check("Clients", i, cl.Name)
	}
}

// spread checks a process's rate spread, alone and around its rate.
func (v *validator) spread(path Path, name string, spread float64) {
	path = path.Join(field.Of("RateSpread"))
	rate := v.rateOf(name)
	switch {
	case spread < 0 || spread > clocks.MaxRatePPM:
		v.add(path, "must be in [0, %d], got %v", clocks.MaxRatePPM, spread).Subject = name
	case math.Abs(rate) <= clocks.MaxRatePPM && math.Abs(rate)+spread > clocks.MaxRatePPM:
		// A rate out of range is its clock's own problem, reported once.
		v.add(path, "rate_ppm %v ± rate_spread_ppm %v can leave ±%d ppm", rate, spread, clocks.MaxRatePPM).Subject = name
	}
}

func (v *validator) rateOf(name string) float64 {
	for _, n := range v.c.Nodes {
		if n.Name == name {
			return n.Clock.RatePPM
		}
	}
	for _, c := range v.c.Clients {
		if c.Name == name {
			return c.Clock.RatePPM
		}
	}
	return 0
}

func (v *validator) algorithm() {
	c := v.c
	alg := c.Lock.Algorithm
	if fewest, msg := alg.FewestNodes(); len(c.Nodes) < fewest {
		v.add(field.Of("Nodes"), "%s", msg)
	} else if q := c.Lock.QuorumOf(len(c.Nodes)); alg.AsksAll() && q > len(c.Nodes) {
		v.add(field.Of("Lock", "Quorum"), "%d can never be reached with %d nodes", q, len(c.Nodes))
	}
	if alg.Store() {
		v.under(field.Of("Store", "Clock"), "store", c.Store.Clock.Validate())
		switch {
		case c.Store.LeaseCheckEvery < 0:
			v.add(field.Of("Store", "LeaseCheckEvery"), "must not be negative, got %v", c.Store.LeaseCheckEvery)
		case c.Store.LeaseCheckEvery > 0 && alg.Sessions():
			v.add(field.Of("Store", "LeaseCheckEvery"), "%v expires its sessions in buckets of lock.tick; it takes no lease check interval", alg)
		}
	}
	if alg.Sentinel() {
		if c.Sentinel.DownAfter <= 0 {
			v.add(field.Of("Sentinel", "DownAfter"), "must be positive, got %v", c.Sentinel.DownAfter)
		}
		if c.Sentinel.PingEvery <= 0 || c.Sentinel.PingEvery > c.Sentinel.DownAfter {
			v.add(field.Of("Sentinel", "PingEvery"), "must be positive and at most down_after, got %v", c.Sentinel.PingEvery)
		}
	}
	switch {
	case c.Lock.WaitReplicas > 0 && !alg.Waits():
		v.add(field.Of("Lock", "WaitReplicas"), "only the failover lock waits for replicas")
	case c.Lock.WaitReplicas > len(c.Nodes)-1 && alg.Waits():
		v.add(field.Of("Lock", "WaitReplicas"), "%d replicas can never acknowledge with %d nodes", c.Lock.WaitReplicas, len(c.Nodes))
	}
}

func (v *validator) resource() {
	c := v.c
	if c.Work.Tokens == client.IncrToken && !slices.Contains(v.nodes, c.Work.FenceNode) {
		v.add(field.Of("Work", "FenceNode"), "%s", v.unknown(c.Work.FenceNode, "node", v.nodes))
	}
	if c.Work.Tokens == client.RevisionToken && c.Lock.Algorithm.Tokens() != client.RevisionToken {
		v.add(field.Of("Work", "Tokens"), "revision tokens come from the consensus store; use the lease lock or incr tokens")
	}
	switch {
	case c.Resource.Mode == 0:
		v.add(field.Of("Resource", "Mode"), "must be set")
	case c.Resource.Mode == resource.Fencing && c.Work.Tokens == client.NoToken:
		v.add(field.Of("Resource", "Mode"), "fencing needs tokens (incr or revision)")
	}
}

func (v *validator) network() {
	n := v.c.Network
	v.under(field.Of("Network", "Latency"), "", n.Latency.Validate())
	if n.Loss < 0 || n.Loss >= 1 {
		v.add(field.Of("Network", "Loss"), "must be in [0, 1), got %v", n.Loss)
	}
	if n.PartitionMode != network.PartitionDrop && n.PartitionMode != network.PartitionHold {
		v.add(field.Of("Network", "PartitionMode"), "must be drop or hold, got %v", n.PartitionMode)
	}
	if n.RetransmitLimit < 0 {
		v.add(field.Of("Network", "RetransmitLimit"), "must be positive, got %v", n.RetransmitLimit)
	}
	for i, l := range n.Links {
		path := field.Of("Network", "Links", i)
		v.endpoint(path.Join(field.Of("From")), l.From)
		if v.endpoint(path.Join(field.Of("To")), l.To) && l.To == l.From {
			v.add(path.Join(field.Of("To")), "a link joins two different endpoints; from and to are both %q", l.To)
		}
		if l.Latency.Kind != 0 {
			v.under(path.Join(field.Of("Latency")), "", l.Latency.Validate())
		}
		if l.Loss != nil && (*l.Loss < 0 || *l.Loss >= 1) {
			v.add(path.Join(field.Of("Loss")), "must be in [0, 1), got %v", *l.Loss)
		}
	}
}

// endpoint checks that name, at path, is one of the world's endpoints.
func (v *validator) endpoint(path Path, name string) bool {
	return v.oneOf(path, name, "endpoint", v.endpoints)
}

func (v *validator) oneOf(path Path, name, what string, list []string) bool {
	if slices.Contains(list, name) {
		return true
	}
	v.add(path, "%s", v.unknown(name, what, list))
	return false
}

// unknown explains that no what in list is called name.
func (v *validator) unknown(name, what string, list []string) string {
	msg := fmt.Sprintf("no %s is called %q (valid: %s)", what, name, field.Names(list))
	switch {
	case name == "store" && !v.c.Lock.Algorithm.Store():
		msg += "; the store exists only with algorithm = " + client.StoreAlgorithms()
	case name == "sentinel" && !v.c.Lock.Algorithm.Sentinel():
		msg += `; the sentinel exists only with algorithm = "failover"`
	}
	return msg
}

// fault checks fault i: its time here, the rest by its kind's check (see
// faultKinds).
func (v *validator) fault(i int, f Fault) {
	c := &faultCheck{v: v, f: f, path: field.Of("Faults", i)}
	switch {
	case f.At < 0:
		c.errf("At", "must not be negative")
	case f.At >= v.c.Duration:
		c.errf("At", "%v is not before the end of the run (%v)", f.At, v.c.Duration)
	}
	if !f.Kind.Valid() {
		c.errf("Kind", "must be one of %s", strings.Join(FaultKinds(), ", "))
		return
	}
	faultKinds[f.Kind].check(c)
	c.checkForLock()
	c.checkSpreads(v.c.Duration)
}

// foldedClocks checks each process's clock as the world builds it: its
// spec with the clock faults aimed at it folded in one by one, at both
// extremes of its rate spread. It blames the first fault that breaks it.
func (v *validator) foldedClocks() {
	for _, p := range v.clockSpecs() {
		spec := p.spec
		for i, f := range v.c.Faults {
			if f.Target != p.name {
				continue
			}
			var folded bool
			if spec, folded = WithClockFault(spec, f); !folded {
				continue
			}
			if err := validSpread(spec, p.spread); err != nil {
				cause := err
				var fe *FieldError
				if errors.As(err, &fe) {
					cause = fe.Err
				}
				e := v.add(field.Of("Faults", i), "this %v makes %s's clock invalid, together with its clock table and earlier clock faults: %v", f.Kind, p.name, cause)
				e.Subject = fmt.Sprintf("%v at %v", f.Kind, f.At)
				break
			}
		}
	}
}

// validSpread validates s at both extremes of a rate spread.
func validSpread(s clocks.Spec, spread float64) error {
	for _, sign := range []float64{-1, 1} {
		t := s
		t.RatePPM += sign * spread
		if err := t.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// clockSpec is a process's clock as its Config gives it.
type clockSpec struct {
	name   string
	spec   clocks.Spec
	spread float64
}

// clockSpecs lists the clocks of the processes that have one, in endpoint
// order.
func (v *validator) clockSpecs() []clockSpec {
	var out []clockSpec
	for _, n := range v.c.Nodes {
		out = append(out, clockSpec{n.Name, n.Clock, n.RateSpread})
	}
	if v.c.Lock.Algorithm.Store() {
		out = append(out, clockSpec{"store", v.c.Store.Clock, 0})
	}
	for _, c := range v.c.Clients {
		out = append(out, clockSpec{c.Name, c.Clock, c.RateSpread})
	}
	return out
}
