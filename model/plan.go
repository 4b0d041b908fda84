package model

import (
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/network"
)

// Plan is a Config compiled for the world: validated once, with every name
// resolved to its endpoint, each clock's final spec (its clock faults
// folded in) and the fault schedule with its endpoints resolved. NewWorld
// consumes a Plan and checks nothing again; a Plan is never written after
// Compile, so one Plan serves any number of worlds, in parallel too.
//
// The world holds its Plan and nothing beside it: what a world reads of the
// Config it reads here, the settings as given (cfg) and what Compile
// derives from them once for every world (healed, the names).
type Plan struct {
	cfg    Config
	procs  []plannedProc // in endpoint order
	nodes  []network.Endpoint
	links  []plannedLink
	faults []plannedFault
	// healed is when the faults have all ended, for liveness (HealedBy).
	healed time.Duration
	// nodeNames and clientNames are the names of the nodes and the
	// clients in their order, which the sentinel and the clients are
	// given; the actors read them and never write them.
	nodeNames, clientNames []string
}

// plannedProc is one process: endpoint i of the world is procs[i].
type plannedProc struct {
	name   string
	role   role
	index  int         // into Config.Nodes or Config.Clients for those roles
	clock  clocks.Spec // with its clock faults folded in
	spread float64
}

type plannedLink struct {
	from, to network.Endpoint
	LinkConfig
}

// plannedFault is a fault with its names resolved; an unset endpoint is -1.
type plannedFault struct {
	Fault
	target, to network.Endpoint
	groups     [][]network.Endpoint
}

// Compile validates cfg (see Validate) and compiles it into a Plan. The Plan
// keeps a copy of cfg; it shares cfg's slices and never writes them.
func Compile(cfg *Config) (*Plan, error) {
	v := newValidator(cfg)
	if err := v.validate(); err != nil {
		return nil, err
	}
	p := &Plan{
		cfg: *cfg, healed: HealedBy(cfg.Faults, cfg.Duration),
		nodeNames: make([]string, 0, len(cfg.Nodes)), clientNames: make([]string, 0, len(cfg.Clients)),
	}
	// Endpoint order: nodes, the resource, the store, the sentinel, the
	// clients. Traces and random streams follow it, so it is fixed here
	// once rather than left to the order of adding.
	for i, n := range cfg.Nodes {
		p.nodeNames = append(p.nodeNames, n.Name)
		p.nodes = append(p.nodes, network.Endpoint(len(p.procs)))
		p.procs = append(p.procs, plannedProc{name: n.Name, role: roleNode, index: i, clock: n.Clock, spread: n.RateSpread})
	}
	p.procs = append(p.procs, plannedProc{name: "resource", role: roleResource})
	if cfg.Lock.Algorithm.Store() {
		p.procs = append(p.procs, plannedProc{name: "store", role: roleStore, clock: cfg.Store.Clock})
	}
	if cfg.Lock.Algorithm.Sentinel() {
		p.procs = append(p.procs, plannedProc{name: "sentinel", role: roleSentinel})
	}
	for i, c := range cfg.Clients {
		p.clientNames = append(p.clientNames, c.Name)
		p.procs = append(p.procs, plannedProc{name: c.Name, role: roleClient, index: i, clock: c.Clock, spread: c.RateSpread})
	}
	for i := range p.procs {
		for _, f := range cfg.Faults {
			if f.Target == p.procs[i].name {
				p.procs[i].clock, _ = WithClockFault(p.procs[i].clock, f)
			}
		}
	}
	for _, l := range cfg.Network.Links {
		p.links = append(p.links, plannedLink{from: p.endpoint(l.From), to: p.endpoint(l.To), LinkConfig: l})
	}
	for _, f := range cfg.Faults {
		pf := plannedFault{Fault: f, target: p.endpoint(f.Target), to: p.endpoint(f.To)}
		for _, g := range f.Groups {
			pf.groups = append(pf.groups, p.endpoints(g))
		}
		p.faults = append(p.faults, pf)
	}
	return p, nil
}

// Config is the configuration the plan was compiled from.
func (p *Plan) Config() *Config { return &p.cfg }

// Processes names every process of the plan's world, in endpoint order:
// the nodes, the resource, the store and the sentinel where the algorithm
// has them, the clients.
func (p *Plan) Processes() []string {
	out := make([]string, len(p.procs))
	for i, pr := range p.procs {
		out[i] = pr.name
	}
	return out
}

// endpoint is the endpoint called name, or -1 ("" names none).
func (p *Plan) endpoint(name string) network.Endpoint {
	for i, pr := range p.procs {
		if pr.name == name {
			return network.Endpoint(i)
		}
	}
	return -1
}

func (p *Plan) endpoints(names []string) []network.Endpoint {
	out := make([]network.Endpoint, len(names))
	for i, n := range names {
		out[i] = p.endpoint(n)
	}
	return out
}
