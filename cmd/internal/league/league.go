package league

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// lock is one row of the league: a lock as its users run it.
type lock struct {
	name, config string
	lock         string // the scenario's [lock] and [nodes] tables
	tokens       string // the store's own fencing token, "" for a lock that has none
}

// locks are the locks, each in the configuration its documentation
// recommends (see docs/guides/which-lock.md).
var locks = []lock{
	{"redlock", "redsync, 5 masters, ttl 10 s, extended at half its validity", "[lock]\npreset = \"redsync\"\nttl = \"10s\"\nextend = true\nmax_extensions = 100\n[nodes]\ncount = 5\n", ""},
	{"redisson", "RLock with the watchdog (30 s), master and replica under Sentinel", "[lock]\npreset = \"redisson\"\nttl = \"30s\"\n[nodes]\ncount = 2\n", ""},
	{"redisson-wait", "the same with WAIT 1 (1 s timeout) after taking the lock", "[lock]\npreset = \"redisson-wait\"\nttl = \"30s\"\n[nodes]\ncount = 2\n", ""},
	{"etcd", "concurrency.Mutex, 10 s lease", "[lock]\nalgorithm = \"lease\"\nttl = \"10s\"\n[nodes]\ncount = 0\n", "revision"},
	{"zookeeper", "Curator InterProcessMutex, 10 s session, tick 2 s", "[lock]\nalgorithm = \"zookeeper\"\n[nodes]\ncount = 0\n", "zxid"},
	{"k8s-lease", "client-go LeaderElector, 15 s / 10 s / 2 s", "[lock]\npreset = \"k8s-defaults\"\n[nodes]\ncount = 0\n", "resource-version"},
	{"dynamodb", "lock client, 20 s lease, 5 s heartbeat", "[lock]\nalgorithm = \"dynamodb\"\n[nodes]\ncount = 0\n", "rvn"},
	{"consul", "api.Lock, 15 s session TTL, 15 s lock-delay", "[lock]\npreset = \"consul-defaults\"\n[nodes]\ncount = 0\n", "lock-index"},
}

// base is what every lock's world shares: three clients taking
// turns with a 2 s critical section for three minutes.
const base = `duration = "180s"
[workload]
critical_section = "2s"
think = "1s"
[clients]
count = 3
stagger = "10ms"
`

// faultSet is one column of the league: the same faults for every
// lock. servers are the lock's servers (the store, or the Redis nodes).
type faultSet struct {
	name, what string
	apply      func(cfg *model.Config, servers []string)
}

var faultSets = []faultSet{
	{"none", "no faults", func(*model.Config, []string) {}},
	{"pauses", "every client pauses on average every 10 s, lognormal lengths with median 300 ms and sigma 1.5 (1 in 100 longer than 10 s)",
		func(cfg *model.Config, _ []string) {
			for i := range cfg.Clients {
				cfg.Clients[i].Pauses = model.PauseConfig{Every: 10 * time.Second, Length: network.Lognormal(300*time.Millisecond, 1.5)}
			}
		}},
	{"clock-rate", "every client and Redis node runs at a rate error drawn in ±5%; the consensus store's clock runs 5% fast",
		func(cfg *model.Config, _ []string) {
			for i := range cfg.Clients {
				cfg.Clients[i].RateSpread = 50000
			}
			for i := range cfg.Nodes {
				cfg.Nodes[i].RateSpread = 50000
			}
			cfg.Store.Clock.RatePPM = 50000
		}},
	{"partition", "critical sections of 20 s (a long job, kept by the lock's renewals), and c1, the first holder, is cut off from the lock's servers, not from the resource, from 5 s to 45 s",
		func(cfg *model.Config, servers []string) {
			cfg.Work.CriticalSection = 20 * time.Second
			for _, s := range servers {
				cfg.Faults = append(cfg.Faults,
					model.Fault{At: 5 * time.Second, Kind: model.Cut, Target: "c1", To: s},
					model.Fault{At: 5 * time.Second, Kind: model.Cut, Target: s, To: "c1"})
			}
			cfg.Faults = append(cfg.Faults, model.Fault{At: 45 * time.Second, Kind: model.Heal})
		}},
	{"crash", "c1 crashes for good as it next acquires the lock after 30 s: its belief ends as it dies, and its lock stays until the store or the nodes let it go",
		func(cfg *model.Config, _ []string) {
			cfg.Faults = append(cfg.Faults, model.Fault{At: 30 * time.Second, Kind: model.Crash, Target: "c1", NoRestart: true, OnAcquire: true})
		}},
	{"server-pauses", "a lock server pauses 4 s at 30 s, 80 s and 130 s (the first three Redis nodes in turn; the consensus store, standing for its leader)",
		func(cfg *model.Config, servers []string) {
			for i, at := range []time.Duration{30 * time.Second, 80 * time.Second, 130 * time.Second} {
				cfg.Faults = append(cfg.Faults, model.Fault{At: at, Kind: model.Pause, Target: servers[i%len(servers)], For: 4 * time.Second})
			}
		}},
}

// Cell is what the runs of one lock, fault set and fencing showed.
type Cell struct {
	lock, faults string
	fenced       bool
	runs         int
	acquisitions int
	violations   int // overlapping pairs of holds
	unsafeRuns   int // runs with a lost update or a stale write accepted
	lost, stale  int
	outages      []time.Duration // each run's time from the crash to the next acquisition (the crash set only)
	p50s, p99s   []time.Duration // each run's acquisition latency percentiles
	estimate     *cellEstimate   // the rare-event estimator's, for a cell with few violations; nil if not asked
}

// rate is violations per acquisition with its exact 95% (Garwood)
// interval.
func (c *Cell) rate() (r, lo, hi float64) {
	if c.acquisitions == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	r, lo, hi, _ = results.PoissonRate(int64(c.violations), float64(c.acquisitions))
	return r, lo, hi
}

// median of ds (the lower middle of an even count); 0 for none.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// longest of ds; 0 for none.
func longest(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Max(ds)
}

// job is one cell's configuration.
type job struct {
	cell *Cell
	cfg  model.Config
}

// jobs builds every cell's configuration, in table order.
func jobs(seeds int) ([]job, error) {
	var jobs []job
	for _, l := range locks {
		for _, fs := range faultSets {
			for _, fenced := range []bool{false, true} {
				if fenced && l.tokens == "" {
					continue
				}
				src := base + l.lock
				if fenced {
					src += "[resource]\nmode = \"fencing\"\ntokens = \"" + l.tokens + "\"\n"
				}
				sc, err := scenarios.Parse("league-"+l.name+".toml", []byte(src))
				if err != nil {
					return nil, fmt.Errorf("league: %s: %w", l.name, err)
				}
				cfg := sc.Config
				servers := []string{"store"}
				if !cfg.Lock.Algorithm.Store() {
					servers = servers[:0]
					for _, n := range cfg.Nodes {
						servers = append(servers, n.Name)
					}
				}
				fs.apply(&cfg, servers)
				if err := cfg.Validate(); err != nil {
					return nil, fmt.Errorf("league: %s under %s: %w", l.name, fs.name, err)
				}
				jobs = append(jobs, job{cell: &Cell{lock: l.name, faults: fs.name, fenced: fenced, runs: seeds}, cfg: cfg})
			}
		}
	}
	return jobs, nil
}

// run runs every job's seeds 1..seeds on workers goroutines, each
// run alone and single-threaded, and adds each run's result into its
// cell in seed order, so that the cells do not depend on the workers.
// runWorld makes one run of the league, narrated (traced) or fast.
type runWorld func(cfg model.Config, seed uint64, traced bool) (model.Result, error)

// modelRun is runWorld by the model.
func modelRun(cfg model.Config, seed uint64, traced bool) (model.Result, error) {
	if traced {
		return model.RunTraced(cfg, seed)
	}
	return model.RunFast(cfg, seed)
}

func run(jobs []job, seeds, workers int, runOne runWorld) error {
	type task struct{ job, seed int }
	results := make([][]check.Report, len(jobs))
	for i := range results {
		results[i] = make([]check.Report, seeds)
	}
	tasks := make(chan task)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range tasks {
				seed := uint64(t.seed + 1)
				traced := jobs[t.job].cell.faults == "crash" // every hold, for crashOutage
				// A panic in a run is a bug (exit 3), not the death of
				// the process that a worker's panic was.
				r, err := sweeprun.Guard(seed, func() (model.Result, error) { return runOne(jobs[t.job].cfg, seed, traced) })
				if err != nil {
					select {
					case errs <- fmt.Errorf("league: %s under %s, seed %d: %w", jobs[t.job].cell.lock, jobs[t.job].cell.faults, seed, err):
					default: // the first are enough; a worker never waits to say more
					}
					continue
				}
				rep := r.Report
				if jobs[t.job].cell.faults == "crash" {
					rep.LongestOutage = crashOutage(r.History)
				}
				rep.Violations = nil // the counts are enough: keep the memory small
				results[t.job][t.seed] = rep
			}
		}()
	}
	for j := range jobs {
		for s := range seeds {
			tasks <- task{j, s}
		}
	}
	close(tasks)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	for j, job := range jobs {
		c := job.cell
		for _, rep := range results[j] {
			c.acquisitions += rep.AcquireSuccesses
			c.violations += rep.MutexViolations
			c.lost += rep.LostUpdates
			c.stale += rep.StaleWritesAccepted
			if rep.LostUpdates+rep.StaleWritesAccepted > 0 {
				c.unsafeRuns++
			}
			if c.faults == "crash" {
				c.outages = append(c.outages, rep.LongestOutage)
			}
			if rep.AcquireSuccesses > 0 {
				c.p50s = append(c.p50s, rep.AcquireP50)
				c.p99s = append(c.p99s, rep.AcquireP99)
			}
		}
	}
	return nil
}

// crashOutage is how long after c1's crash (its first acquisition at or
// after 30 s, where the crash set kills it) another client acquired the
// lock; to the end of the run if none did, and 0 if c1 never got there.
func crashOutage(h check.History) time.Duration {
	crash := time.Duration(-1)
	for _, hd := range h.Holds {
		if hd.Client == "c1" && hd.Start >= 30*time.Second && (crash < 0 || hd.Start < crash) {
			crash = hd.Start
		}
	}
	if crash < 0 {
		return 0
	}
	next := h.End
	for _, hd := range h.Holds {
		if hd.Client != "c1" && hd.Start >= crash && hd.Start < next {
			next = hd.Start
		}
	}
	return next - crash
}

func (c *Cell) fencing() string {
	if c.fenced {
		return "fenced"
	}
	return "unfenced"
}

// find is the cell of lock, fault set and fencing, or nil.
func find(cells []*Cell, lock, faults string, fenced bool) *Cell {
	for _, c := range cells {
		if c.lock == lock && c.faults == faults && c.fenced == fenced {
			return c
		}
	}
	return nil
}

// formatRate writes a rate and its interval: "0 [0, 0.0012]".
func formatRate(c *Cell) string {
	r, lo, hi := c.rate()
	if math.IsNaN(r) {
		return "no acquisition"
	}
	return fmt.Sprintf("%.3g [%.2g, %.2g]", r, lo, hi)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// markdown is the table: one row per lock.
func markdown(cells []*Cell, seeds int) string {
	var b strings.Builder
	b.WriteString("| lock | configuration |")
	for _, fs := range faultSets {
		fmt.Fprintf(&b, " %s |", fs.name)
	}
	b.WriteString(" unsafe runs unfenced | unsafe runs fenced | outage after a crash | latency p50 / p99 |\n|---|---|")
	for range faultSets {
		b.WriteString("---|")
	}
	b.WriteString("---|---|---|---|\n")
	for _, l := range locks {
		fmt.Fprintf(&b, "| %s | %s |", l.name, l.config)
		unfenced, fenced, total := 0, 0, 0
		for _, fs := range faultSets {
			c := find(cells, l.name, fs.name, false)
			fmt.Fprintf(&b, " %s |", formatRate(c))
			unfenced += c.unsafeRuns
			total += c.runs
			if fc := find(cells, l.name, fs.name, true); fc != nil {
				fenced += fc.unsafeRuns
			}
		}
		fencedText := "no token"
		if l.tokens != "" {
			fencedText = fmt.Sprintf("%d of %d (%s)", fenced, total, l.tokens)
		}
		crash := find(cells, l.name, "crash", false)
		calm := find(cells, l.name, "none", false)
		fmt.Fprintf(&b, " %d of %d | %s | %s (max %s) | %s / %s |\n", unfenced, total, fencedText,
			seconds(median(crash.outages)), seconds(longest(crash.outages)), seconds(median(calm.p50s)), seconds(median(calm.p99s)))
	}
	fmt.Fprintf(&b, "\nMutex violations per acquisition (overlapping pairs of holds over successful acquisitions, with exact 95%% Poisson intervals), %d seeds of 180 s with three clients per cell. Unsafe runs: runs with a lost update or a stale write accepted, over every fault set. Outage: the median (and largest) time from the holder's crash to the next acquisition by another client. Latency: the median over seeds of each run's acquisition p50 and p99 without faults.\n\nFault sets:\n", seeds)
	for _, fs := range faultSets {
		fmt.Fprintf(&b, "- %s: %s\n", fs.name, fs.what)
	}
	return b.String()
}

// League is a played league: every cell, in table order.
type League struct {
	Cells []*Cell
	Seeds int
	// EstimateRuns is the rare-event estimator's budget per cell with
	// few violations; 0: not asked.
	EstimateRuns int
}

// Play runs every lock under every fault set, with and without fencing
// where the lock has a token, on seeds 1..seeds, workers runs at once;
// with estimateRuns above 0 it then asks the rare-event estimator about
// each unfenced cell with few violations, at most estimateRuns runs each
// (estimate.MinRuns at least). The cells do not depend on workers.
func Play(ctx context.Context, seeds, workers, estimateRuns int) (*League, error) {
	return play(ctx, seeds, workers, estimateRuns, modelRun)
}

// play is Play with the runs made by runOne.
func play(ctx context.Context, seeds, workers, estimateRuns int, runOne runWorld) (*League, error) {
	js, err := jobs(seeds)
	if err != nil {
		return nil, err
	}
	if err := run(js, seeds, workers, runOne); err != nil {
		return nil, err
	}
	if estimateRuns > 0 {
		if err := estimateSmall(ctx, js, estimateRuns, workers); err != nil {
			return nil, err
		}
	}
	l := &League{Seeds: seeds, EstimateRuns: estimateRuns}
	for _, j := range js {
		l.Cells = append(l.Cells, j.cell)
	}
	return l, nil
}

// Markdown is the table: one row per lock, then what the columns and the
// fault sets are.
func (l *League) Markdown() string {
	return markdown(l.Cells, l.Seeds) + estimatesMarkdown(l.Cells, l.EstimateRuns)
}

// CSV is every cell, one a row.
func (l *League) CSV() []byte {
	var csvb strings.Builder
	w := csv.NewWriter(&csvb)
	header := []string{"lock", "faults", "fencing", "runs", "acquisitions", "violations", "mutex_violations_per_acquisition", "mutex_violations_per_acquisition_ci_low", "mutex_violations_per_acquisition_ci_high", "unsafe_runs", "lost_updates", "stale_writes_accepted", "outage_median_s", "outage_max_s", "p50_median_s", "p99_median_s"}
	if l.EstimateRuns > 0 {
		header = append(header, estimateColumns...)
	}
	w.Write(header)
	for _, c := range l.Cells {
		r, lo, hi := c.rate()
		row := []string{c.lock, c.faults, c.fencing(), fmt.Sprint(c.runs), fmt.Sprint(c.acquisitions), fmt.Sprint(c.violations),
			fmt.Sprintf("%.6g", r), fmt.Sprintf("%.6g", lo), fmt.Sprintf("%.6g", hi), fmt.Sprint(c.unsafeRuns), fmt.Sprint(c.lost), fmt.Sprint(c.stale),
			fmt.Sprintf("%.3f", median(c.outages).Seconds()), fmt.Sprintf("%.3f", longest(c.outages).Seconds()),
			fmt.Sprintf("%.4f", median(c.p50s).Seconds()), fmt.Sprintf("%.4f", median(c.p99s).Seconds())}
		if l.EstimateRuns > 0 {
			row = append(row, c.estimate.csv()...)
		}
		w.Write(row)
	}
	w.Flush()
	return []byte(csvb.String())
}

// Figure is the violation rates as a heatmap, locks by fault sets.
func (l *League) Figure() (*plots.Figure, error) {
	g := plots.Grid{XLabel: "fault set", YLabel: "lock", ZLabel: "mutex violations per acquisition", Cells: plots.CellsEven,
		Title:   "The lock league: mutual exclusion under the same faults",
		Caption: "Each cell: overlapping pairs of holds per successful acquisition, with its exact 95% interval (redlocksim league)."}
	for i, fs := range faultSets {
		g.Xs, g.XNames = append(g.Xs, float64(i)), append(g.XNames, fs.name)
	}
	for i, lk := range locks {
		g.Ys, g.YNames = append(g.Ys, float64(i)), append(g.YNames, lk.name)
		var z, lo, hi []float64
		for _, fs := range faultSets {
			r, l, h := find(l.Cells, lk.name, fs.name, false).rate()
			z, lo, hi = append(z, r), append(lo, l), append(hi, h)
		}
		g.Z, g.Low, g.High = append(g.Z, z), append(g.Low, lo), append(g.High, hi)
	}
	return plots.Heatmap(g)
}
