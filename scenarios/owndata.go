package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios/internal/datafile"
)

// DataFile is one measurement file a scenario read, for provenance: run
// output and JSON name each with its hash, so that a result can be traced
// to the exact data behind it.
type DataFile struct {
	Key     string // the latency table that names it, like "clients.pauses.length"
	Path    string // as the scenario wrote it
	Format  string
	SHA256  string // hex, the whole file
	Samples int
}

// Short is the first 12 hex digits of the hash, as output prints it.
func (f DataFile) Short() string { return f.SHA256[:12] }

func (f DataFile) String() string {
	return fmt.Sprintf("%s: %s, %d samples, sha256 %s (%s)", f.Path, f.Format, f.Samples, f.Short(), f.Key)
}

// maxDataBytes bounds a data file: a year of GC log lines fits, a disk
// image given by mistake does not.
const maxDataBytes = 256 << 20

// readData reads the data file at p, which is relative to the scenario
// file's directory unless absolute.
func (d *decoder) readData(p string) ([]byte, string, error) {
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(filepath.Dir(d.file), p)
	}
	f, err := os.Open(full)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, full, fmt.Errorf("cannot read %s: no such file (a relative path is relative to the scenario file's directory)", full)
		}
		return nil, full, fmt.Errorf("cannot read %s: %v", full, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDataBytes+1))
	if err != nil {
		return nil, full, fmt.Errorf("cannot read %s: %v", full, err)
	}
	if len(data) > maxDataBytes {
		return nil, full, fmt.Errorf("%s is larger than %d MiB; give a part of it", full, maxDataBytes>>20)
	}
	return data, full, nil
}

// empiricalKeys are the keys of an empirical latency table besides kind.
var empiricalKeys = []string{"file", "format", "column", "unit", "tail", "tail_above"}

// empirical decodes an empirical latency table: it reads and parses the
// file, and fits the tail, so that the network package gets samples and
// never a path.
func (d *decoder) empirical(t *table, l *network.Latency) {
	var path, format string
	if !t.str("file", &path) || !enum(t, "format", &format, func(s string) (string, error) {
		if slices.Contains(datafile.Formats, s) {
			return s, nil
		}
		return "", fmt.Errorf("unknown format %q (valid: %s)", s, strings.Join(datafile.Formats, ", "))
	}) {
		return
	}
	var opt datafile.Options
	if format == datafile.Durations {
		t.str("column", &opt.Column)
		var unit string
		if t.str("unit", &unit) {
			u, ok := units[unit]
			if !ok {
				t.errf("unit", "unknown unit %q (valid: ns, us, ms, s)", unit)
				return
			}
			opt.Unit = u
		}
	} else {
		for _, k := range []string{"column", "unit"} {
			if t.has(k) {
				t.errf(k, "only format = \"durations\" takes %s; format is %q", k, format)
				return
			}
		}
	}
	fit := network.TailFit{Kind: network.DefaultTail, AboveQuantile: network.DefaultTailAbove}
	enum(t, "tail", &fit.Kind, network.ParseTailKind)
	if t.has("tail_above") {
		if fit.Kind == network.TailNone {
			t.errf("tail_above", `tail = "none" fits no tail, so tail_above means nothing: drop one of them`)
			return
		}
		d.tailAbove(t, &fit)
	}
	data, full, err := d.readData(path)
	if err != nil {
		t.errf("file", "%v", err)
		return
	}
	parsed, err := datafile.Parse(format, data, opt)
	if err != nil {
		t.errf("file", "%s: %v", full, err)
		return
	}
	e, err := network.NewEmpirical(parsed.Samples, fit)
	if err != nil {
		k := "file"
		switch {
		case t.has("tail_above"):
			k = "tail_above"
		case t.has("tail"):
			k = "tail"
		}
		t.errf(k, "%s (%s, %d samples): %v", full, format, len(parsed.Samples), err)
		return
	}
	if d.arrivals == nil {
		d.arrivals = map[string][]time.Duration{}
	}
	d.arrivals[t.path] = parsed.At
	f := d.record(t, path, format, data, e.N())
	e.Source, e.Format, e.Digest = path, format, f.Short()
	*l = network.FromTable(e)
}

var units = map[string]time.Duration{"ns": 1, "us": time.Microsecond, "µs": time.Microsecond, "ms": time.Millisecond, "s": time.Second}

// tailAbove reads tail_above: a duration, or a quantile of the data as
// the quantile keys spell it ("p90").
func (d *decoder) tailAbove(t *table, fit *network.TailFit) {
	if s, ok := t.m["tail_above"].(string); ok {
		if i := slices.Index(quantileKeys, s); i >= 0 {
			fit.AboveQuantile = quantileLevels[i]
			return
		}
		if strings.HasPrefix(s, "p") {
			t.errf("tail_above", "unknown quantile %q (valid: %s, or a duration like \"200ms\")", s, strings.Join(quantileKeys, ", "))
			return
		}
	}
	t.dur("tail_above", &fit.Above, positive)
}

// chronyStepAbove is the offset in a tracking.log that counts as a step
// chronyd made: the threshold of Debian's default "makestep 1 3". Smaller
// offsets are slewed away, which the rate spread already covers.
const chronyStepAbove = 1.0 // seconds

// chrony reads a clock table's chrony key: a tracking.log gives the
// clock's rate error, drawn per process (uniformly, from the seed) over
// the frequency the log measured, widened by the largest skew; and a
// step of -offset wherever the log's offset reached chronyStepAbove,
// at its time since the log's first line, within the run.
func (d *decoder) chrony(t *table, spec *clocks.Spec, spread *float64) {
	for _, k := range []string{"rate_ppm", "rate_spread_ppm", "steps"} {
		if t.has(k) {
			t.errf(k, "chrony sets %s from the log: drop one of them", k)
			return
		}
	}
	var path string
	if !t.str("chrony", &path) {
		return
	}
	data, full, err := d.readData(path)
	if err != nil {
		t.errf("chrony", "%v", err)
		return
	}
	log, err := datafile.Chrony(data)
	if err != nil {
		t.errf("chrony", "%s: %v", full, err)
		return
	}
	lo, hi := slices.Min(log.Freq), slices.Max(log.Freq)
	spec.RatePPM = (lo + hi) / 2
	*spread = (hi-lo)/2 + slices.Max(log.Skew)
	spec.Steps = nil
	for i, off := range log.Offset {
		at := log.At[i]
		if math.Abs(off) < chronyStepAbove || at >= d.duration || (len(spec.Steps) > 0 && spec.Steps[len(spec.Steps)-1].At == at) {
			continue
		}
		spec.Steps = append(spec.Steps, clocks.Step{At: at, By: -time.Duration(math.Round(off * 1e9))})
	}
	d.record(t, path, datafile.ChronyTracking, data, len(log.At))
}

// record notes a data file the table t read, for provenance.
func (d *decoder) record(t *table, path, format string, data []byte, samples int) DataFile {
	sum := sha256.Sum256(data)
	f := DataFile{Key: t.path, Path: path, Format: format, SHA256: hex.EncodeToString(sum[:]), Samples: samples}
	d.dataFiles = append(d.dataFiles, f)
	return f
}

// FromLog is the value of a pauses table's every that takes the pause
// arrivals from the times in the length table's log.
const FromLog = "from-log"

// logArrivals sets p's arrivals from the log its length table read (at
// path): the log's pause times, once each (a Go trace's two phases of one
// cycle share a time), and every to their mean gap.
func (d *decoder) logArrivals(t *table, path string, p *model.PauseConfig) {
	at, read := d.arrivals[path]
	if !read {
		if !t.bad {
			t.errf("every", `every = "from-log" takes the pause times from the log of an empirical length, like { kind = "empirical", file = "gc.log", format = "jvm-gc" }`)
		}
		return
	}
	var times []time.Duration
	for _, a := range at {
		if len(times) == 0 || a > times[len(times)-1] {
			times = append(times, a)
		}
	}
	if len(times) < 2 {
		t.errf("every", `every = "from-log" needs a log with the times of at least two pauses (jvm-gc with its uptime decoration [1.234s], or go-gctrace); this log has %d`, len(times))
		return
	}
	p.Arrivals = make([]time.Duration, len(times))
	for i, a := range times {
		p.Arrivals[i] = a - times[0]
	}
	p.Every = max(p.Arrivals[len(times)-1]/time.Duration(len(times)-1), MinPeriod)
}
