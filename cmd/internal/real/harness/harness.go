package harness

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proxy"
	"github.com/redlocksim/redlocksim/cmd/internal/real/resource"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/client"
	simres "github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/sim"
)

// Options are a real run's settings.
type Options struct {
	Scale float64 // 0: DefaultScale
	Seed  uint64  // client pauses and retry delays draw from it
	// Keep, when not empty, is a directory that receives every node's
	// directory (AOF, log) and every client's stderr instead of deleting
	// them, and every client's records as it wrote them (NAME.events, one
	// JSON Event a line, times in wall time since T0): the history a
	// verdict was judged from, for a run that needs explaining.
	Keep string
	// Client is the command that runs one client process: the binary and
	// its arguments (the command's hidden real-client subcommand).
	Client []string
	// Group, if set, owns the run's processes (a test passes one it closes
	// in t.Cleanup); otherwise Run makes and closes its own.
	Group *proc.Group
}

// Result is one real run, judged.
type Result struct {
	Scenario string
	Scale    float64
	Floor    time.Duration // the loopback's one-way latency floor through a proxy
	Wall     time.Duration // the whole run, processes' start-up included
	End      time.Duration // the run's length after scaling
	Report   check.Report
	History  check.History
	Clients  string   // which lock client ran
	Notes    []string // what the real run does differently, and why it is equivalent
}

// Run runs cfg for real and judges its history with model/check. A
// *RefusedError (possibly several, joined) or a *proc.MissingError means
// bad input; anything else is a failure of the run.
func Run(ctx context.Context, cfg model.Config, opt Options) (*Result, error) {
	wallStart := time.Now()
	refused, notes := Refusals(&cfg)
	if len(refused) > 0 {
		errs := make([]error, len(refused))
		for i, r := range refused {
			errs[i] = r
		}
		return nil, errors.Join(errs...)
	}
	f := opt.Scale
	if f == 0 {
		f = DefaultScale(&cfg)
	}
	if err := CheckScale(&cfg, f); err != nil {
		return nil, &RefusedError{What: "--scale", Reason: err.Error()}
	}
	sys, no := systemOf(&cfg)
	if no != nil {
		return nil, no
	}
	if n, ok := sys.(scaleNoter); ok {
		notes = append(notes, n.scaleNotes(&cfg, f)...)
	}
	bins := map[string]string{}
	for _, b := range sys.binaries() {
		path, err := b.find()
		if err != nil {
			return nil, err
		}
		bins[b.name] = path
	}
	if len(opt.Client) == 0 {
		return nil, errors.New("harness: Options.Client is empty")
	}
	sc := Scale(cfg, f)
	g := opt.Group
	if g == nil {
		g = proc.NewGroup()
		defer g.Close()
	}
	r := &run{cfg: &sc, opt: opt, g: g, sys: sys, bins: bins, replication: map[string][]*proxy.Set{}, pauses: scaledPauses(&cfg, opt.Seed, f)}
	defer r.close()
	res := &Result{Scenario: cfg.Name, Scale: f, End: sc.Duration, Notes: notes}
	var err error
	if res.Floor, err = measureFloor(); err != nil {
		return nil, err
	}
	if err := r.startNodes(ctx); err != nil {
		return nil, err
	}
	if err := sys.start(ctx, r); err != nil {
		return nil, err
	}
	if err := r.startProxies(); err != nil {
		return nil, err
	}
	if err := r.startClients(ctx); err != nil {
		return nil, err
	}
	res.Clients = r.driverName
	if err := r.play(ctx); err != nil {
		return nil, err
	}
	res.History = r.history()
	r.mu.Lock()
	res.Notes = append(res.Notes, r.notes...)
	r.mu.Unlock()
	res.Notes = append(res.Notes, r.acqPauseNotes()...)
	res.Report = check.Check(res.History)
	res.Wall = time.Since(wallStart)
	return res, nil
}

// run is the state of one real run.
type run struct {
	cfg  *model.Config // scaled
	opt  Options
	g    *proc.Group
	sys  system            // the lock service of the scenario's algorithm
	bins map[string]string // sys.binaries(), found: name → path

	nodes   []*redisNode
	store   storeCluster // the consensus store (etcd, ZooKeeper), or nil
	links   *linkSet
	clients []*clientProc
	res     *resource.Server
	resAddr string

	sentinelAddr string
	replication  map[string][]*proxy.Set // master → the delayed links of its replicas

	files      []*os.File // kept clients' stderr and records, closed with the run
	driverName string
	// pauses are the clients' random pauses, drawn as the simulator
	// draws them (model.RandomPauses) and scaled as cfg is.
	pauses []model.RandomPause
	t0     time.Time
	t0mono int64
	// atT0 run once T0 is fixed, before any client hears of it: the
	// place for whatever needs the run's start on CLOCK_MONOTONIC (a
	// node's clock file, which the clock library reads its true time
	// from). A nodeSetup adds to it; an error ends the run.
	atT0 []func(t0 time.Time, t0mono int64) error
	// beforeT0 run in order just before T0 is fixed and may delay it: the
	// place for what must line the run's start up with the machine (the
	// wall second an everysec node's fsyncs follow). A nodeSetup adds to
	// it; an error ends the run.
	beforeT0 []func(ctx context.Context) error
	// everysec are the appendfsync everysec nodes whose data directory
	// is a lazyfs mount (alignFsyncs).
	everysec []lazyNode

	mu        sync.Mutex
	log       []sim.Record             // what the harness did, in model/story's kinds (record)
	paused    map[string]time.Duration // target → when its latest pause ends
	acqPauses []acqPause               // the pauses on acquisition, as they happened
	notes     []string                 // what the run measured of itself (a reaction delay)
}

type clientProc struct {
	name  string
	id    int
	p     *proc.Proc
	stdin io.WriteCloser
	mu    sync.Mutex
	evs   []Event
	ready chan string // the lock client's name, once
	err   error       // a malformed line
	// onStop is told each stop record (EvStop) as it is read.
	onStop func(ev Event)
	// record, when not nil (Options.Keep), receives every line as read.
	record io.Writer
}

func (r *run) close() {
	for _, f := range r.files {
		f.Close()
	}
	if r.links != nil {
		r.links.Close()
	}
	if r.res != nil {
		r.res.Close()
	}
	for _, sets := range r.replication {
		for _, s := range sets {
			s.Close()
		}
	}
}

func (r *run) dir(name string) (string, error) {
	if r.opt.Keep != "" {
		d := filepath.Join(r.opt.Keep, name)
		return d, os.MkdirAll(d, 0o755)
	}
	return r.g.TempDir("redlocksim-" + name + "-*")
}

// startNodes starts every scenario node's redis-server, each prepared by
// nodeSetups first, and preloads the fencing counter.
func (r *run) startNodes(ctx context.Context) error {
	for _, n := range r.cfg.Nodes {
		port, err := proc.FreePort()
		if err != nil {
			return err
		}
		dir, err := r.dir(n.Name)
		if err != nil {
			return err
		}
		node := &redisNode{name: n.Name, path: r.bins["redis-server"], dir: dir, port: port, group: r.g}
		for _, setup := range nodeSetups {
			if err := setup(r, n, node); err != nil {
				return fmt.Errorf("%s: %w", n.Name, err)
			}
		}
		node.args = redisArgs(n, port, node.dir)
		// A port free a moment ago may have become some connection's
		// ephemeral source port since: the server then exits at once,
		// and another port is tried.
		for try := 1; ; try++ {
			err = node.start(ctx)
			if err == nil || try == 3 || !strings.Contains(err.Error(), "in use") {
				break
			}
			if node.port, err = proc.FreePort(); err != nil {
				return err
			}
			node.args = redisArgs(n, node.port, node.dir)
		}
		if err != nil {
			return err
		}
		r.nodes = append(r.nodes, node)
	}
	w := r.cfg.Work
	if w.Tokens == client.IncrToken {
		if err := r.node(w.FenceNode).do(ctx, "SET", w.FenceKey, r.cfg.Resource.TokenStart); err != nil {
			return fmt.Errorf("preload the fencing counter on %s: %w", w.FenceNode, err)
		}
	}
	return nil
}

func (r *run) node(name string) *redisNode {
	for _, n := range r.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

// linkName names the proxy link between a client and a server.
func linkName(client, server string) string { return client + ">" + server }

func (r *run) startProxies() error {
	// The resource listens now, so that its port is bound before the
	// store's and the clients' connections take ephemeral ports; its clock
	// starts at T0 (play).
	mode := simres.Config{Mode: r.cfg.Resource.Mode, ServiceTime: r.cfg.Resource.ServiceTime}
	var err error
	if r.res, err = resource.Listen(mode, "127.0.0.1:0", time.Now()); err != nil {
		return err
	}
	r.resAddr = r.res.Addr()
	r.links, err = newLinks(r.opt.Seed)
	if err != nil {
		return err
	}
	for _, c := range r.cfg.Clients {
		for _, n := range r.nodes {
			if err := r.links.Add(linkName(c.Name, n.name), n.addr()); err != nil {
				return err
			}
		}
		if err := r.links.Add(linkName(c.Name, "resource"), r.resAddr); err != nil {
			return err
		}
	}
	return r.applyLatencies()
}

func (r *run) startClients(ctx context.Context) error {
	driver := r.sys.driver(r.cfg.Lock)
	for i, c := range r.cfg.Clients {
		spec := ClientSpec{
			Name: c.Name, ID: i + 1, Driver: driver,
			Lock: r.cfg.Lock, Work: r.cfg.Work, StartIn: c.StartIn, End: r.cfg.Duration,
			Seed: r.opt.Seed, SelfStops: r.selfStops(c.Name), AcquireStops: r.acquireStops(c.Name),
		}
		if clk, ok := processClock(r.cfg, c.Name, c.Clock, c.RateSpread, r.opt.Seed); ok && (driver == DriverRawRedlock || driver == DriverRawSingle) {
			spec.Clock = &clk // the raw client reads it (ownClock)
		}
		for _, n := range r.nodes {
			spec.Nodes = append(spec.Nodes, r.links.Addr(linkName(c.Name, n.name)))
		}
		if r.cfg.Work.Tokens == client.IncrToken {
			spec.FenceAddr = r.links.Addr(linkName(c.Name, r.cfg.Work.FenceNode))
			spec.FenceKey = r.cfg.Work.FenceKey
		}
		if err := r.sys.connect(r, c.Name, &spec); err != nil {
			return err
		}
		spec.Resource = r.links.Addr(linkName(c.Name, "resource"))
		cp, err := r.startClient(spec)
		if err != nil {
			return err
		}
		r.clients = append(r.clients, cp)
	}
	deadline := time.After(20 * time.Second)
	for _, cp := range r.clients {
		select {
		case name := <-cp.ready:
			r.driverName = name
		case <-cp.p.Done():
			return fmt.Errorf("client %s did not start: %w", cp.name, cp.p.ExitError())
		case <-deadline:
			return fmt.Errorf("client %s not ready within 20s", cp.name)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (r *run) startClient(spec ClientSpec) (*clientProc, error) {
	cp := &clientProc{name: spec.Name, id: spec.ID, ready: make(chan string, 1)}
	cp.onStop = func(ev Event) { r.stoppedOnAcquire(cp, ev) }
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ps := proc.Spec{Name: "client " + spec.Name, Path: r.opt.Client[0], Args: r.opt.Client[1:], Stdin: stdinR, Stdout: outW}
	if r.opt.Keep != "" {
		// A scenario without nodes makes no node directory that would
		// have created Keep on the way.
		if err := os.MkdirAll(r.opt.Keep, 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(filepath.Join(r.opt.Keep, spec.Name+".stderr"))
		if err != nil {
			return nil, err
		}
		ps.Stderr = f
		r.files = append(r.files, f)
		ev, err := os.Create(filepath.Join(r.opt.Keep, spec.Name+".events"))
		if err != nil {
			return nil, err
		}
		cp.record = ev
		r.files = append(r.files, ev)
	}
	cp.p, err = r.g.Start(ps)
	stdinR.Close()
	outW.Close()
	if err != nil {
		return nil, err
	}
	cp.stdin = stdinW
	go cp.read(outR)
	b, _ := json.Marshal(spec)
	if _, err := stdinW.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("client %s: send its spec: %w", spec.Name, err)
	}
	return cp, nil
}

// read collects a client's events until its stdout closes.
func (cp *clientProc) read(out io.ReadCloser) {
	defer out.Close()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if cp.record != nil {
			// A kept file that fails to take a line loses only the
			// copy; the run goes on from what was read.
			_, _ = fmt.Fprintf(cp.record, "%s\n", sc.Bytes())
		}
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			cp.mu.Lock()
			cp.err = fmt.Errorf("client %s wrote %q: %w", cp.name, sc.Text(), err)
			cp.mu.Unlock()
			continue
		}
		if ev.Kind == EvReady {
			cp.ready <- ev.Text
			continue
		}
		cp.mu.Lock()
		cp.evs = append(cp.evs, ev)
		cp.mu.Unlock()
		if ev.Kind == EvStop && cp.onStop != nil {
			cp.onStop(ev)
		}
	}
}

// play starts the clock: it fixes T0, times the resource server from it,
// tells every client, applies the faults at their times and waits for
// the run's end.
func (r *run) play(ctx context.Context) error {
	for _, f := range r.beforeT0 {
		if err := f(ctx); err != nil {
			return err
		}
	}
	r.t0 = time.Now()
	r.t0mono = monoNow()
	r.res.SetStart(r.t0)
	for _, f := range r.atT0 {
		if err := f(r.t0, r.t0mono); err != nil {
			return err
		}
	}
	sched, err := r.schedule()
	if err != nil {
		return err
	}
	t0 := strconv.FormatInt(r.t0mono, 10) + "\n"
	for _, cp := range r.clients {
		if _, err := io.WriteString(cp.stdin, t0); err != nil {
			return fmt.Errorf("client %s: send T0: %w", cp.name, err)
		}
	}
	errc := make(chan error, 1)
	done := make(chan struct{})
	go func() { errc <- r.applyFaults(ctx, sched, done) }()
	end := time.NewTimer(r.cfg.Duration - time.Since(r.t0))
	defer end.Stop()
	var failed error
	for waiting := true; waiting; {
		select {
		case <-end.C:
			waiting = false
		case <-ctx.Done():
			failed, waiting = ctx.Err(), false
		case <-r.res.Broken():
			waiting = false // no use going on: see below
		case err := <-errc:
			errc = nil // every action applied; wait for the end
			if err != nil {
				failed, waiting = err, false
			}
		}
	}
	close(done)
	// The run is over: stop every client where it stands (a frozen one
	// too), then the nodes' processes go with the group.
	for _, cp := range r.clients {
		_ = cp.p.Kill()
	}
	if err := r.res.Err(); err != nil && failed == nil {
		// A write too stale for the resource to judge (looked at once
		// the clients are stopped, for one that came as the run ended):
		// the record misses it, so the run cannot be judged.
		failed = fmt.Errorf("the run cannot be judged: %w", err)
	}
	if failed != nil {
		return failed
	}
	for _, cp := range r.clients {
		cp.mu.Lock()
		err := cp.err
		cp.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// tell appends what the harness did to the run's log, stamped now, as
// the simulator records the same: one of model/story's facts.
func (r *run) tell(actor string, f story.Fact) { r.tellAt(time.Since(r.t0), actor, f) }

// tellAt records fact f under actor's name as of at.
func (r *run) tellAt(at time.Duration, actor string, f story.Fact) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, sim.Record{At: at, Actor: actor, Kind: f.Kind(), Fields: story.Fields(f)})
}

// holdAt is the time of the client's acquisition record of lock value
// lock, 0 if it has none.
func (cp *clientProc) holdAt(lock uint64) time.Duration {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for i := len(cp.evs) - 1; i >= 0; i-- {
		if ev := cp.evs[i]; ev.Kind == EvHold && ev.Lock == lock {
			return ev.At
		}
	}
	return 0
}

// history turns the clients' events, the resource's record and the
// harness's own into the checker's history through a check.Recorder, as
// model.World does for the simulator, and tells each in model/story's
// words.
func (r *run) history() check.History {
	type tagged struct {
		ev     Event
		client string
	}
	var all []tagged
	for _, cp := range r.clients {
		cp.mu.Lock()
		for _, ev := range cp.evs {
			all = append(all, tagged{ev, cp.name})
		}
		cp.mu.Unlock()
	}
	slices.SortStableFunc(all, func(a, b tagged) int { return cmp.Compare(a.ev.At, b.ev.At) })

	var rec check.Recorder
	ids := map[string]check.ClientID{}
	for _, cp := range r.clients {
		ids[cp.name] = rec.Client(cp.name)
	}
	tell := func(at time.Duration, actor string, f story.Fact) {
		rec.Log(story.Tell(sim.Record{At: at, Actor: actor, Kind: f.Kind(), Fields: story.Fields(f)}))
	}
	for _, t := range all {
		ev, name, c := t.ev, t.client, ids[t.client]
		now := max(ev.At, 0)
		if o, ok := ev.Observation(); ok {
			model.RecordClient(&rec, c, now, o, &rec)
		}
		switch ev.Kind {
		case EvConnect:
			tell(now, name, story.Connect{Nodes: ev.Text, Quorum: story.Text(ev.N)})
		case EvAttemptEnd:
			if !ev.OK {
				tell(now, name, story.TryFail{Why: ev.Text})
			}
		case EvHold:
			nodes := ev.Text
			if nodes == "" { // redsync does not say which nodes said OK
				nodes = "a quorum"
			}
			var validity any = ev.Until - now
			if ev.Until < 0 {
				validity = "until it unlocks"
			}
			tell(now, name, story.Acquire{Nodes: nodes, Validity: story.Text(validity), Value: fmt.Sprintf("%#x", ev.Lock)})
		case EvExtend:
			// In the model's words for the same round (model/client's
			// extendAnswer).
			switch {
			case r.cfg.Lock.Renewal == client.Watchdog && ev.OK:
				tell(now, name, story.Renew{TTL: story.Text(r.cfg.Lock.TTL)})
			case r.cfg.Lock.Renewal == client.Watchdog:
				tell(now, name, story.RenewalStop{OK: ev.Text})
			case ev.OK:
				tell(now, name, story.Extend{Validity: story.Text(ev.Until - now), Extension: story.Text(ev.N)})
			default:
				tell(now, name, story.ExtendFail{OK: ev.Text})
			}
		case EvAbort:
			tell(now, name, story.AbortWork{Why: ev.Text})
		case EvToken:
			from := ev.Text // the lock's own token says where from
			if from == "" {
				from = r.cfg.Work.FenceNode
			}
			tell(now, name, story.GetToken{Token: story.Text(ev.Token), From: from})
		case EvHoldEnd:
			tell(now, name, story.LetGo{Why: ev.Text})
		case EvNote:
			tell(now, name, story.Remark{Text: ev.Text})
		}
	}
	reads, writes := r.res.History(rec.HoldID)
	for _, x := range reads {
		rec.Read(x)
	}
	for _, w := range writes {
		rec.Write(w)
	}
	for _, op := range r.res.Ops() {
		switch {
		case op.Kind != resource.Write:
		case op.Accepted:
			w := story.AcceptWrite{By: op.Client, Element: fmt.Sprintf("%#x", op.Element), Version: story.Text(op.Version)}
			if op.Token != 0 {
				w.Token = story.Text(op.Token)
			}
			tell(op.At, "resource", w)
		default:
			tell(op.At, "resource", story.RejectWrite{By: story.Text(op.Client), Reason: story.Text(op.Reason)})
		}
	}
	r.mu.Lock()
	for _, x := range r.log {
		rec.Log(story.Tell(x))
	}
	r.mu.Unlock()
	return rec.Finish(r.cfg.Duration, r.res.Final())
}

// target is the process a pause of name stops: a node, one of the
// system's own (the store), or a client.
func (r *run) target(name string) (signaller, error) {
	if n := r.node(name); n != nil {
		return n, nil
	}
	if p := r.sys.target(r, name); p != nil {
		return p, nil
	}
	for _, cp := range r.clients {
		if cp.name == name {
			return cp, nil
		}
	}
	return nil, fmt.Errorf("no process %q to pause", name)
}

// signal sends sig to the client's process. A client whose workload is
// over has exited with status 0: it holds nothing and waits for nothing,
// so a pause of it, as in the model, changes nothing, and is no error.
func (cp *clientProc) signal(sig syscall.Signal) error {
	if cp.p.Finished() {
		return nil
	}
	return cp.p.Signal(sig)
}
