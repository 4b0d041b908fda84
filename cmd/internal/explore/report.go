package explore

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// BoundsText lists the bounds of what the space draws, as --bound spells
// them: the statement "rate < x" holds within these.
func (sp *Space) BoundsText() string {
	var parts []string
	for _, b := range boundKeys {
		kind, _, _ := strings.Cut(b.key, ".")
		if b.key != "at" {
			k, err := model.ParseFaultKind(kind)
			if err != nil || !slices.Contains(sp.Kinds, k) {
				continue
			}
		}
		r := sp.bounds[b.key]
		if b.duration {
			parts = append(parts, fmt.Sprintf("%s=%v..%v", b.key, time.Duration(r.Lo), time.Duration(r.Hi)))
		} else {
			parts = append(parts, fmt.Sprintf("%s=%g..%g", b.key, r.Lo, r.Hi))
		}
	}
	return strings.Join(parts, " ")
}

// KindsText lists the kinds drawn, comma-separated.
func (sp *Space) KindsText() string {
	names := make([]string, len(sp.Kinds))
	for i, k := range sp.Kinds {
		names[i] = k.String()
	}
	return strings.Join(names, ",")
}

// WriteText prints the summary for a reader: the runs, the violation rate
// with its 95% Wilson interval (or the upper bound when there were none),
// and each distinct minimal counterexample with its replay command.
func (e *Explorer) WriteText(w io.Writer, s Summary, opt Options) {
	fmt.Fprintf(w, "explore %s: property %s, faults %s, at most %d faults, explore seed %d, run seed %d\n",
		e.sc.Name, e.prop, e.space.KindsText(), e.space.MaxFaults, opt.Seed, e.sc.Seed)
	fmt.Fprintf(w, "bounds: %s\n", e.space.BoundsText())
	if e.margin > 0 {
		fmt.Fprintf(w, "an overlap counts when it lasts at least %v (--margin)\n", e.margin)
	}
	if e.seeds > 1 {
		fmt.Fprintf(w, "a schedule counts when it breaks %s on seed %d and on a majority of seeds %d..%d (--robust)\n", e.prop, e.sc.Seed, e.sc.Seed, e.sc.Seed+uint64(e.seeds)-1)
	}
	if s.Interrupted {
		fmt.Fprintf(w, "interrupted: what follows is what %d runs found\n", s.Runs)
	}
	if s.Rejected > 0 {
		fmt.Fprintf(w, "%d drawn schedules were refused by the model (first: %s)\n", s.Rejected, s.FirstRejection)
	}
	lo, hi := results.Wilson(s.Violating, s.Runs)
	if s.Violating == 0 {
		fmt.Fprintf(w, "0 violations in %d runs; rate < %.3g at 95%% within these bounds\n", s.Runs, hi)
		return
	}
	fmt.Fprintf(w, "%d violations in %d runs (rate %.4g; 95%% interval %.4g–%.4g)\n", s.Violating, s.Runs, float64(s.Violating)/float64(s.Runs), lo, hi)
	fmt.Fprintf(w, "%d distinct minimal counterexample%s (shrunk %d: the first violation of each drawn shape)\n", len(s.Findings), plural(len(s.Findings)), s.Shrunk)
	for i, f := range s.Findings {
		fmt.Fprintf(w, "\n%d. %s\n", i+1, f.Minimal)
		fmt.Fprintf(w, "   shape   %s (%d fault%s", f.Shape, len(f.Minimal), plural(len(f.Minimal)))
		if f.Clients < e.clients {
			fmt.Fprintf(w, ", %d of the %d clients", f.Clients, e.clients)
		}
		fmt.Fprintf(w, "; drawn with %d at run %d, shrunk in %d runs", len(f.Drawn), f.Run, f.ShrinkRuns)
		if f.Same > 0 {
			fmt.Fprintf(w, "; %d more shrank to this shape", f.Same)
		}
		fmt.Fprintln(w, ")")
		fmt.Fprintf(w, "   shows   %s\n", f.What)
		if f.Real != nil {
			fmt.Fprintf(w, "   real    %s\n", f.Real)
		}
		if f.File != "" {
			fmt.Fprintf(w, "   replay  redlocksim run %s\n", f.File)
		}
	}
}

type jsonFinding struct {
	Faults     []string  `json:"faults"`
	Shape      string    `json:"shape"`
	Shows      string    `json:"shows"`
	File       string    `json:"file,omitempty"`
	Replay     string    `json:"replay,omitempty"`
	Run        int       `json:"run"`
	Drawn      int       `json:"drawn_faults"`
	ShrinkRuns int       `json:"shrink_runs"`
	Same       int       `json:"same_shape"`
	Clients    int       `json:"clients"`
	Real       *realJSON `json:"real,omitempty"`
}

type realJSON struct {
	Runs    int     `json:"runs"`
	Showed  int     `json:"showed"`
	Refused string  `json:"refused,omitempty"`
	Client  string  `json:"lock_client,omitempty"`
	Scale   float64 `json:"scale,omitempty"`
	Date    string  `json:"date,omitempty"`
}

// WriteJSON prints the summary as one JSON object.
func (e *Explorer) WriteJSON(w io.Writer, s Summary, opt Options) error {
	lo, hi := results.Wilson(s.Violating, s.Runs)
	rate := 0.0
	if s.Runs > 0 {
		rate = float64(s.Violating) / float64(s.Runs)
	}
	out := struct {
		Scenario    string        `json:"scenario"`
		Property    string        `json:"property"`
		Faults      string        `json:"faults"`
		MaxFaults   int           `json:"max_faults"`
		Bounds      string        `json:"bounds"`
		Seed        uint64        `json:"seed"`
		RunSeed     uint64        `json:"run_seed"`
		Runs        int           `json:"runs"`
		Violating   int           `json:"violating"`
		Rate        float64       `json:"rate"`
		RateLo      float64       `json:"rate_lo95"`
		RateHi      float64       `json:"rate_hi95"`
		Rejected    int           `json:"rejected"`
		Shrunk      int           `json:"shrunk"`
		Interrupted bool          `json:"interrupted"`
		MarginMS    float64       `json:"margin_ms,omitempty"`
		Findings    []jsonFinding `json:"counterexamples"`
	}{e.sc.Name, e.prop.String(), e.space.KindsText(), e.space.MaxFaults, e.space.BoundsText(), opt.Seed, e.sc.Seed,
		s.Runs, s.Violating, round(rate), round(lo), round(hi), s.Rejected, s.Shrunk, s.Interrupted, round(float64(e.margin) / 1e6), []jsonFinding{}}
	for _, f := range s.Findings {
		j := jsonFinding{Shape: f.Shape, Shows: f.What, File: f.File, Run: f.Run, Drawn: len(f.Drawn), ShrinkRuns: f.ShrinkRuns, Same: f.Same, Clients: f.Clients}
		for _, st := range f.Minimal {
			j.Faults = append(j.Faults, st.String())
		}
		if f.File != "" {
			j.Replay = "redlocksim run " + f.File
		}
		if c := f.Real; c != nil {
			j.Real = &realJSON{c.Runs, c.Showed, c.Refused, c.Client, round(c.Scale), c.Date}
		}
		out.Findings = append(out.Findings, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }
