package runjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/scenarios"
)

// jsonResult is run --json's object. Field names are a contract.
type Result struct {
	Scenario            string      `json:"scenario"`
	ScenarioHash        string      `json:"scenario_hash"` // see loadScenarioHash
	Version             string      `json:"version"`       // of redlocksim, see version
	Seed                uint64      `json:"seed"`
	Mutex               string      `json:"mutex"`
	Resource            string      `json:"resource"`
	Liveness            string      `json:"liveness,omitempty"` // only when the scenario records property = "liveness"
	ExpectMutex         string      `json:"expect_mutex,omitempty"`
	ExpectResource      string      `json:"expect_resource,omitempty"`
	MutexViolations     int         `json:"mutex_violations"`
	TotalOverlapMs      float64     `json:"total_overlap_ms"`
	MaxOverlapMs        float64     `json:"max_overlap_ms"`
	LostUpdates         int         `json:"lost_updates"`
	StaleWritesAccepted int         `json:"stale_writes_accepted"`
	StaleWritesRejected int         `json:"stale_writes_rejected"`
	WritesAccepted      int         `json:"writes_accepted"`
	AcquireAttempts     int         `json:"acquire_attempts"`
	AcquireSuccesses    int         `json:"acquire_successes"`
	AcquireFailures     int         `json:"acquire_failures"`
	AcquireP50Ms        float64     `json:"acquire_p50_ms"`
	AcquireP99Ms        float64     `json:"acquire_p99_ms"`
	UnavailableMs       float64     `json:"unavailable_ms"`
	LongestOutageMs     float64     `json:"longest_outage_ms"`
	Events              uint64      `json:"events"`
	Messages            uint64      `json:"messages"`
	MessagesDropped     uint64      `json:"messages_dropped"`
	VirtualMs           float64     `json:"virtual_ms"`
	Violations          []Violation `json:"violations"`
	Replay              string      `json:"replay,omitempty"`
	Trace               []string    `json:"trace,omitempty"`      // with --trace: the narrated lines, header first
	DataFiles           []DataFile  `json:"data_files,omitempty"` // the measurement files the scenario read
}

// DataFile is one measurement file of the object's data_files.
type DataFile struct {
	Key     string `json:"key"`
	Path    string `json:"path"`
	Format  string `json:"format"`
	SHA256  string `json:"sha256"`
	Samples int    `json:"samples"`
}

// DataFiles is files as data_files lists them: nil for none, so that an
// object with no data file has no key.
func DataFiles(files []scenarios.DataFile) []DataFile {
	var out []DataFile
	for _, f := range files {
		out = append(out, DataFile{Key: f.Key, Path: f.Path, Format: f.Format, SHA256: f.SHA256, Samples: f.Samples})
	}
	return out
}

type Violation struct {
	Kind    string  `json:"kind"`
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
	Summary string  `json:"summary"`
}

// Options are what run's flags change in its JSON.
type Options struct {
	// Version is the redlocksim version the object names (the command's
	// build stamp; the exported lab is given its exporter's).
	Version string
	// Trace adds the narrated lines (run --trace), Drops the dropped
	// messages among them (--drops).
	Trace, Drops bool
}

// Write prints run --json's object for a run of sc (whose file hashes to
// hash) that ended in res; replay is the command that replays it, printed
// when the run found a violation.
func Write(w io.Writer, sc *scenarios.Scenario, hash string, res model.Result, replay string, o Options) error {
	out := ofReport(sc, hash, o.Version, res.Seed, res.Report, res.End)
	out.Events, out.Messages, out.MessagesDropped = res.Events, res.Net.Sent, res.Net.Dropped()
	out.DataFiles = DataFiles(sc.DataFiles)
	if live := sc.JudgeLiveness(res); live.Judged {
		out.Liveness = scenarios.Verdict(!live.Starved)
		if live.Starved {
			out.Violations = append(out.Violations, Violation{Kind: "liveness", StartMs: Ms(live.From), EndMs: Ms(live.From + live.Wait), Summary: live.String()})
		}
	}
	if len(out.Violations) > 0 {
		out.Replay = replay
	}
	if o.Trace {
		var b strings.Builder
		b.WriteString(story.TraceHeader(res.Trace))
		if err := story.WriteTrace(&b, res.Trace, res.Clocks, story.TraceOptions{Drops: o.Drops}); err != nil {
			return err
		}
		out.Trace = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	}
	return Print(w, out)
}

// ofReport is the fields of the object that a checker's report and the
// run's end fill, the same for a simulated and a real run.
func ofReport(sc *scenarios.Scenario, hash, version string, seed uint64, rep check.Report, end time.Duration) Result {
	mutex, resource := rep.Safe()
	out := Result{
		Scenario: sc.Name, ScenarioHash: hash, Version: version, Seed: seed,
		Mutex: scenarios.Verdict(mutex), Resource: scenarios.Verdict(resource),
		ExpectMutex: sc.Expect.Mutex, ExpectResource: sc.Expect.Resource,
		MutexViolations: rep.MutexViolations, TotalOverlapMs: Ms(rep.MutexOverlapTotal), MaxOverlapMs: Ms(rep.MutexOverlapMax),
		LostUpdates: rep.LostUpdates, StaleWritesAccepted: rep.StaleWritesAccepted, StaleWritesRejected: rep.StaleWritesRejected,
		WritesAccepted: rep.WritesAccepted, AcquireAttempts: rep.AcquireAttempts, AcquireSuccesses: rep.AcquireSuccesses,
		AcquireFailures: rep.AcquireFailures, AcquireP50Ms: Ms(rep.AcquireP50), AcquireP99Ms: Ms(rep.AcquireP99),
		UnavailableMs: Ms(rep.Unavailable), LongestOutageMs: Ms(rep.LongestOutage), VirtualMs: Ms(end),
		Violations: []Violation{},
	}
	for _, v := range rep.Violations {
		out.Violations = append(out.Violations, Violation{Kind: v.Kind.String(), StartMs: Ms(v.Start), EndMs: Ms(v.End), Summary: v.Summary})
	}
	return out
}

// Real is real --json's object: run's fields (the simulator's counters,
// events and messages, stay zero) plus what only a real run has. The
// report's reality table reads it back.
type Real struct {
	Mode string `json:"mode"` // "real"
	Result
	Run            int      `json:"run"`
	Scale          float64  `json:"scale"`
	LatencyFloorUs float64  `json:"latency_floor_us"`
	WallMs         float64  `json:"wall_ms"`
	LockClient     string   `json:"lock_client"`
	Notes          []string `json:"notes,omitempty"`
}

// RealRun is what one real run gives the object, in the harness's terms
// (harness.Result's fields: this package is in the WebAssembly lab too,
// where the harness cannot be).
type RealRun struct {
	Run              int
	Seed             uint64
	Report           check.Report
	End, Floor, Wall time.Duration
	Scale            float64
	Clients          string
	Notes            []string
}

// OfReal is real --json's object for run r of sc (whose file hashes to
// hash).
func OfReal(sc *scenarios.Scenario, hash, version string, r RealRun) Real {
	return Real{
		Mode: "real", Result: ofReport(sc, hash, version, r.Seed, r.Report, r.End),
		Run: r.Run, Scale: r.Scale, LatencyFloorUs: float64(r.Floor) / 1e3, WallMs: Ms(r.Wall),
		LockClient: r.Clients, Notes: r.Notes,
	}
}

// Ms is a duration in milliseconds, as the JSON objects print them.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Print writes v as indented JSON, as every --json output is printed.
func Print(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ReplayCommand is the command line that replays a run of arg (a library
// name or a file) with seed and the overrides sets, narrated.
func ReplayCommand(arg string, seed uint64, sets []string) string {
	var b strings.Builder
	b.WriteString("redlocksim run ")
	b.WriteString(ShellQuote(arg))
	fmt.Fprintf(&b, " --seed %d", seed)
	for _, s := range sets {
		b.WriteString(" --set ")
		b.WriteString(ShellQuote(s))
	}
	b.WriteString(" --trace")
	return b.String()
}

// ShellQuote quotes s for a POSIX shell where it needs quoting.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// OfFile is what `redlocksim run FILE --json --trace` prints for the
// scenario file named file (a base name) with contents data, which loaded
// to sc and ran, narrated, to res: the lab shows it, served or exported.
func OfFile(version, file string, data []byte, sc *scenarios.Scenario, res model.Result) ([]byte, error) {
	b, err := scenarios.NewBase(file, data)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := Write(&buf, sc, b.Hash(), res, ReplayCommand(file, res.Seed, nil), Options{Version: version, Trace: true}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Count says "1 overlap", "2 overlaps".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
