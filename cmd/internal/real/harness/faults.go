package harness

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proxy"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// links is the run's proxy set with the listen address of each link.
type linkSet struct {
	set   *proxy.Set
	addrs map[string]string
}

func newLinks(seed uint64) (*linkSet, error) {
	return &linkSet{set: proxy.New(nil, seed), addrs: map[string]string{}}, nil
}

func (l *linkSet) Add(name, upstream string) error {
	a, err := l.set.Link(name, upstream)
	if err != nil {
		return err
	}
	l.addrs[name] = a
	return nil
}

func (l *linkSet) Addr(name string) string { return l.addrs[name] }
func (l *linkSet) Close()                  { l.set.Close() }

func measureFloor() (time.Duration, error) {
	d, err := proxy.Floor(50)
	if err != nil {
		return 0, fmt.Errorf("measure the loopback latency floor: %w", err)
	}
	return d, nil
}

// endpoint kinds, for mapping the model's directed links onto proxy links,
// which run from a client to a server.
func (r *run) isClient(name string) bool {
	for _, c := range r.cfg.Clients {
		if c.Name == name {
			return true
		}
	}
	return false
}

// proxyDir finds the proxy link and direction that carry messages from
// one endpoint to another; ok is false when no proxy link does (two
// servers, or two clients: they never talk in a Redlock world).
func (r *run) proxyDir(from, to string) (name string, dir proxy.Dir, ok bool) {
	switch {
	case r.isClient(from) && !r.isClient(to):
		return linkName(from, to), proxy.Upstream, true
	case !r.isClient(from) && r.isClient(to):
		return linkName(to, from), proxy.Downstream, true
	}
	return "", 0, false
}

// applyLatencies sets the network's latency on every link, both ways, and
// the per-link overrides.
func (r *run) applyLatencies() error {
	for _, c := range r.cfg.Clients {
		for _, s := range r.servers() {
			for _, d := range []proxy.Dir{proxy.Upstream, proxy.Downstream} {
				if err := r.links.set.SetLatency(linkName(c.Name, s), d, r.cfg.Network.Latency); err != nil {
					return err
				}
			}
		}
	}
	for _, l := range r.cfg.Network.Links {
		if l.Latency.Kind == 0 {
			continue
		}
		name, d, ok := r.proxyDir(l.From, l.To)
		if !ok {
			continue
		}
		if err := r.links.set.SetLatency(name, d, l.Latency); err != nil {
			return err
		}
	}
	return nil
}

// servers are the endpoints clients talk to.
func (r *run) servers() []string {
	var s []string
	for _, n := range r.nodes {
		s = append(s, n.name)
	}
	return append(s, "resource")
}

// action is one thing to do at a time after T0.
type action struct {
	at   time.Duration
	what string
	do   func() error
}

// adder schedules one action.
type adder func(at time.Duration, what string, do func() error)

// faultRule is how a real run takes one kind of model fault. refuse says
// why a fault of the kind cannot run for real with cfg (nil: it runs, or
// when refuse is nil) and may add a note on what the real run does
// differently; schedule adds the fault's actions. A kind with no rule is
// refused (Refusals), never skipped; TestEveryFaultKindHasARule walks
// model.FaultKinds().
type faultRule struct {
	refuse   func(cfg *model.Config, f model.Fault) (refused *RefusedError, note string)
	schedule func(r *run, f model.Fault, add adder)
	// onStoreLinks, for a network fault, says what it is called when it
	// may reach the consensus store's links, which the proxy does not
	// address per member (storeNetRefusals); nil for a kind that acts on
	// no link.
	onStoreLinks func(f model.Fault, lock client.Algorithm) (what string, reaches bool)
}

// faultRules is the table of every model fault kind's rule.
var faultRules = map[model.FaultKind]faultRule{
	model.Crash:     {refuse: refuseClientCrash, schedule: scheduleCrash},
	model.PowerLoss: {refuse: refusePowerLoss, schedule: scheduleCrash},
	model.Pause: {schedule: func(r *run, f model.Fault, add adder) {
		switch {
		case f.OnAcquire:
			return // the client takes it itself (ClientSpec.AcquireStops)
		case r.inFlight(f):
			r.addPause(add, f.At, f.Target, f.For, "GC, taken by the client itself with its requests on the wire")
			return
		}
		r.addPause(add, f.At, f.Target, f.For, "GC")
	}},
	model.ClockStep: {refuse: refuseClock, schedule: scheduleClock},
	model.ClockRate: {refuse: refuseClock, schedule: scheduleClock},
	model.ClockSlew: {refuse: refuseClock, schedule: scheduleClock},
	model.Partition: {schedule: schedulePartition, onStoreLinks: everyLink},
	model.Cut:       {schedule: schedulePartition, onStoreLinks: everyLink},
	model.Heal: {schedule: func(r *run, f model.Fault, add adder) {
		add(f.At, "heal", r.heal)
	}},
	model.Spike: {schedule: func(r *run, f model.Fault, add adder) {
		add(f.At, "spike", func() error { return r.spike(f) })
	}, onStoreLinks: func(f model.Fault, _ client.Algorithm) (string, bool) {
		// A spike between a client and the resource alone runs.
		return "spike fault that may reach the store", f.Target != "resource" && f.To != "resource"
	}},
	model.Loss: {refuse: always("loss fault",
		"TCP retransmits what the network drops; the proxy cannot drop bytes without breaking the stream")},
	model.HoldMessage: {refuse: always("hold-message fault",
		"the proxy relays a TCP stream's bytes and does not pick out one message by its send time; use a spike or a cut")},
	model.DropMessage: {refuse: always("drop-message fault",
		"TCP retransmits a dropped segment, and the proxy does not pick out one message by its send time; use a cut")},
	model.Election: {refuse: func(cfg *model.Config, _ model.Fault) (*RefusedError, string) {
		return &RefusedError{What: "election fault", Reason: storeReasonsOf(cfg).election}, ""
	}},
}

// refuseClientCrash refuses the crash of a client: the real client
// process would die without the record of its belief's end that the
// model's crashed client leaves, so its hold would look open to the run's
// end. A node's crash runs.
func refuseClientCrash(cfg *model.Config, f model.Fault) (*RefusedError, string) {
	if nodeConfig(cfg, f.Target).Name == f.Target {
		return nil, ""
	}
	return &RefusedError{What: "crash fault of client " + f.Target,
		Reason: "a real client process killed leaves no record of its belief's end; the crash of a client runs in the simulator only"}, ""
}

// everyLink is onStoreLinks for a kind that may cut any link.
func everyLink(f model.Fault, lock client.Algorithm) (string, bool) {
	return f.Kind.String() + " fault with the " + lock.String() + " lock", true
}

// always refuses every fault of a kind, as what, for reason.
func always(what, reason string) func(*model.Config, model.Fault) (*RefusedError, string) {
	return func(*model.Config, model.Fault) (*RefusedError, string) {
		return &RefusedError{What: what, Reason: reason}, ""
	}
}

func scheduleCrash(r *run, f model.Fault, add adder) {
	add(f.At, f.Kind.String()+" "+f.Target, func() error { return r.crash(f) })
}

func schedulePartition(r *run, f model.Fault, add adder) {
	add(f.At, f.Kind.String(), func() error { return r.partition(f) })
}

// schedule lists the run's actions in time order: the scenario's faults,
// each as its kind's rule says, and the clients' random pauses. A fault
// whose kind has no way to run here is an error: Refusals refuses it
// before a run starts.
func (r *run) schedule() ([]action, error) {
	var acts []action
	add := func(at time.Duration, what string, do func() error) {
		acts = append(acts, action{at: at, what: what, do: do})
	}
	for _, f := range r.cfg.Faults {
		rule, ok := faultRules[f.Kind]
		if !ok || rule.schedule == nil {
			return nil, fmt.Errorf("harness: no way to apply a %v fault for real (see Refusals)", f.Kind)
		}
		rule.schedule(r, f, add)
	}
	for _, p := range r.pauses {
		r.addPause(add, p.At, p.Client, p.For, "GC")
	}
	slices.SortStableFunc(acts, func(a, b action) int { return cmp.Compare(a.at, b.at) })
	return acts, nil
}

// inFlight reports whether f pauses a client while its first lock round
// is on the wire (within the lock's request timeout after its start):
// such a pause the client takes itself, see stopper.
func (r *run) inFlight(f model.Fault) bool {
	if f.Kind != model.Pause || f.OnAcquire {
		return false
	}
	for _, c := range r.cfg.Clients {
		if c.Name == f.Target {
			return f.At >= c.StartIn && f.At < c.StartIn+r.cfg.Lock.RequestTimeout
		}
	}
	return false
}

// selfStops lists the times of the pauses client name takes itself.
func (r *run) selfStops(name string) []time.Duration {
	var out []time.Duration
	for _, f := range r.cfg.Faults {
		if f.Target == name && r.inFlight(f) {
			out = append(out, f.At)
		}
	}
	slices.Sort(out)
	return out
}

// acquireStops lists the pauses on acquisition of client name, which it
// takes itself (AcquireStop), in the order of their From.
func (r *run) acquireStops(name string) []AcquireStop {
	var out []AcquireStop
	for _, f := range r.cfg.Faults {
		if f.Kind == model.Pause && f.OnAcquire && f.Target == name {
			out = append(out, AcquireStop{From: f.At, For: f.For})
		}
	}
	slices.SortStableFunc(out, func(a, b AcquireStop) int { return cmp.Compare(a.From, b.From) })
	return out
}

// waitStopped waits up to d for process pid to be stopped (state T in
// /proc/PID/stat), polling; it returns whether it is.
func waitStopped(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false // gone
		}
		// The state follows the command name's closing parenthesis.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && (b[i+2] == 'T' || b[i+2] == 't') {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// addPause schedules a stop-the-world pause: SIGSTOP at at, SIGCONT at its
// end unless a later pause of the same target still holds it.
func (r *run) addPause(add adder, at time.Duration, target string, d time.Duration, why string) {
	sig := func(s syscall.Signal) error {
		p, err := r.target(target)
		if err != nil {
			return err
		}
		return p.signal(s)
	}
	end := at + d
	add(at, "pause "+target, func() error {
		r.mu.Lock()
		if r.paused == nil {
			r.paused = map[string]time.Duration{}
		}
		if cur := r.paused[target]; cur >= end {
			r.mu.Unlock()
			return nil // a pause in force lasts longer
		}
		r.paused[target] = end
		r.mu.Unlock()
		if strings.Contains(why, "itself") {
			r.tell(target, story.Pause{Why: why, For: story.Text(d)})
			return nil // the client stops itself (see stopper)
		}
		r.tell(target, story.Pause{Why: story.Text(why + ", SIGSTOP"), For: story.Text(d)})
		return sig(syscall.SIGSTOP)
	})
	add(end, "resume "+target, func() error {
		r.mu.Lock()
		last := r.paused[target] <= end
		r.mu.Unlock()
		if !last {
			return nil
		}
		r.tell(target, story.Resume{})
		err := sig(syscall.SIGCONT)
		if err != nil && r.node(target) != nil {
			return nil // a node crashed while paused: nothing to resume
		}
		return err
	})
}

// stoppedOnAcquire answers a client's stop record (EvStop): the client
// has stopped itself for a pause on acquisition (see AcquireStop), and the
// harness resumes it at the record's Until, the acquisition plus the
// pause's length, unless a pause in force lasts longer. The stop's place
// after the acquisition record goes into the pause's story, and into the
// run's notes with what the paused hold did (acqPauseNotes).
func (r *run) stoppedOnAcquire(cp *clientProc, ev Event) {
	name := cp.name
	hold := cp.holdAt(ev.Lock)
	why := fmt.Sprintf("GC, as it acquires the lock, SIGSTOP by itself %v after its acquisition record, %s",
		(ev.At - hold).Round(time.Microsecond), ev.Text)
	r.tellAt(ev.At, name, story.Pause{Why: why, For: story.Text(ev.Until - hold)})
	r.mu.Lock()
	r.acqPauses = append(r.acqPauses, acqPause{client: name, lock: ev.Lock, hold: hold, stop: ev.At, end: ev.Until, how: ev.Text})
	if r.paused == nil {
		r.paused = map[string]time.Duration{}
	}
	longer := r.paused[name] >= ev.Until
	if !longer {
		r.paused[name] = ev.Until
	}
	r.mu.Unlock()
	if longer {
		return // the longer pause's end resumes it
	}
	time.AfterFunc(ev.Until-time.Duration(monoNow()-r.t0mono), func() {
		r.mu.Lock()
		last := r.paused[name] <= ev.Until
		r.mu.Unlock()
		if !last {
			return
		}
		// The record comes just before the stop: a SIGCONT sent before
		// the SIGSTOP has taken effect would leave the client stopped.
		waitStopped(cp.p.Pid(), 100*time.Millisecond)
		r.tell(name, story.Resume{})
		if err := cp.signal(syscall.SIGCONT); err != nil {
			r.tell(name, story.Remark{Text: fmt.Sprintf("cannot be resumed: %v", err)})
		}
	})
}

// applyFaults runs the actions at their times until done closes. A
// failing action ends the run with its error.
func (r *run) applyFaults(ctx context.Context, acts []action, done <-chan struct{}) error {
	for _, a := range acts {
		if a.at >= r.cfg.Duration {
			return nil
		}
		t := time.NewTimer(a.at - time.Since(r.t0))
		select {
		case <-t.C:
		case <-done:
			t.Stop()
			return nil
		case <-ctx.Done():
			t.Stop()
			return nil
		}
		if err := a.do(); err != nil {
			return fmt.Errorf("at %v, %s: %w", a.at, a.what, err)
		}
	}
	return nil
}

// crash is a crash or power-loss fault on a node: SIGKILL (or the node's
// power-loss action), then the restart after f.For unless NoRestart.
func (r *run) crash(f model.Fault) error {
	n := r.node(f.Target)
	kill := n.crash
	if f.Kind == model.PowerLoss {
		kill = n.losePower
	}
	r.tell(n.name, story.Down(f.Kind == model.PowerLoss, "", ""))
	if err := kill(); err != nil {
		return err
	}
	for _, s := range r.replication[n.name] {
		s.Close() // its unshipped writes die with it
	}
	if f.NoRestart {
		return nil
	}
	go func() {
		t := time.NewTimer(f.At + f.For - time.Since(r.t0))
		defer t.Stop()
		<-t.C
		if time.Since(r.t0) >= r.cfg.Duration {
			return
		}
		// The same directory: the AOF, if any, reloads.
		if err := n.start(context.Background()); err != nil {
			r.tell(n.name, story.Remark{Text: fmt.Sprintf("fails to restart: %v", err)})
			return
		}
		r.tell(n.name, story.Restart{})
	}()
	return nil
}

// endpoints of the model's partition universe, by index.
func (r *run) universe() []string {
	var names []string
	for _, n := range r.cfg.Nodes {
		names = append(names, n.Name)
	}
	names = append(names, "resource")
	for _, c := range r.cfg.Clients {
		names = append(names, c.Name)
	}
	return names
}

// partition cuts the proxy links the model's grudge for f cuts: the same
// network.Grudge constructors the simulator uses, mapped onto the links
// from clients to servers, one direction each.
func (r *run) partition(f model.Fault) error {
	names := r.universe()
	idx := func(n string) network.Endpoint { return network.Endpoint(slices.Index(names, n)) }
	eps := func(ns []string) []network.Endpoint {
		out := make([]network.Endpoint, len(ns))
		for i, n := range ns {
			out[i] = idx(n)
		}
		return out
	}
	var g network.Grudge
	if f.Kind == model.Cut {
		g = network.Cut([]network.Endpoint{idx(f.Target)}, []network.Endpoint{idx(f.To)})
	} else {
		var universe []network.Endpoint
		if len(f.Groups) == 1 {
			universe = eps(f.Groups[0])
		} else {
			for _, n := range r.cfg.Nodes {
				universe = append(universe, idx(n.Name))
			}
		}
		switch f.Partition {
		case network.PartitionIsolate:
			x := idx(f.Target)
			if !slices.Contains(universe, x) {
				universe = append(slices.Clone(universe), x)
			}
			g = network.Isolate(universe, x)
		case network.PartitionMajorityMinority:
			g = network.MajorityMinority(universe)
		case network.PartitionBridge:
			g = network.Bridge(universe)
		case network.PartitionRing:
			g = network.MajoritiesRing(universe)
		default:
			groups := make([][]network.Endpoint, len(f.Groups))
			for i, gr := range f.Groups {
				groups[i] = eps(gr)
			}
			g = network.Groups(groups)
		}
	}
	var cut []string
	for _, l := range g {
		name, d, ok := r.proxyDir(names[l.From], names[l.To])
		if !ok {
			continue
		}
		if err := r.links.set.Cut(name, d); err != nil {
			return err
		}
		cut = append(cut, names[l.From]+"→"+names[l.To])
	}
	// The simulator's network records a cut as a partition too.
	mode := f.Partition.String()
	if f.Kind == model.Cut {
		mode = "cut"
	}
	r.tell("net", story.Cut{Cuts: story.Text(strings.Join(cut, ", ") + " (bytes held)"), Mode: story.Text(mode)})
	return nil
}

func (r *run) heal() error {
	for _, c := range r.cfg.Clients {
		for _, s := range r.servers() {
			if err := r.links.set.Heal(linkName(c.Name, s)); err != nil {
				return err
			}
		}
	}
	r.tell("net", story.HealAll{})
	return nil
}

func (r *run) spike(f model.Fault) error {
	var n int
	for _, c := range r.cfg.Clients {
		for _, s := range r.servers() {
			for _, pair := range [][2]string{{c.Name, s}, {s, c.Name}} {
				if (f.Target != "" && f.Target != pair[0]) || (f.To != "" && f.To != pair[1]) {
					continue
				}
				name, d, _ := r.proxyDir(pair[0], pair[1])
				if err := r.links.set.Spike(name, d, f.By, f.For); err != nil {
					return err
				}
				n++
			}
		}
	}
	r.tell("net", story.DelaySpike{From: orAll(f.Target), To: orAll(f.To), For: story.Text(f.For), By: story.Text(f.By), Links: story.Text(n)})
	return nil
}

func orAll(s string) string {
	if s == "" {
		return "*"
	}
	return s
}
