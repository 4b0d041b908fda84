package assess

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
)

// Untrustworthy names each estimate whose diagnostics say its interval
// cannot be believed, with why.
func (r *Report) Untrustworthy() []string {
	var out []string
	add := func(what string, res *estimate.Result) {
		// An upper bound with no violation seen is what it says it is.
		if res != nil && !res.Trustworthy && !res.UpperBound {
			out = append(out, what+": "+strings.Join(res.Problems, ", "))
		}
	}
	add("the scenario's "+r.Main.Property, r.Main)
	add("the scenario's resource", r.Resource)
	for _, w := range r.WhatIf {
		add(w.Name, w.Result)
	}
	return out
}

// Write prints the report on one screen. path is where the dominant path
// was written, "" if nowhere.
func (r *Report) Write(w io.Writer, path string) {
	m := r.Main
	fmt.Fprintf(w, "%s: is the lock safe enough? (%s)\n\n", r.Scenario, what(m.Property))
	fmt.Fprintf(w, "  per acquisition      %s\n", perAcquisition(m))
	fmt.Fprintf(w, "  per run              %s\n", perRun(m))
	if m.UpperBound {
		fmt.Fprintf(w, "  per year             at most %.3g expected at %s (%s)\n", r.PerYearHigh, rate(r.Rate), r.RateFrom)
	} else {
		fmt.Fprintf(w, "  per year             %.3g expected [%.3g, %.3g] at %s (%s); at least one: %s\n",
			r.PerYear, r.PerYearLow, r.PerYearHigh, rate(r.Rate), r.RateFrom, percent(r.AtLeastOnce))
	}
	fmt.Fprintf(w, "  how                  %s, %d runs; %s\n", method(m.Method), m.Runs, m.Why)
	if !m.Trustworthy && !m.UpperBound {
		fmt.Fprintf(w, "  NOT TRUSTWORTHY      %s\n", strings.Join(m.Problems, "; "))
	}
	fmt.Fprintln(w)
	switch {
	case r.Pinned == nil:
		fmt.Fprintf(w, "  failure path         none seen\n")
	default:
		fmt.Fprintf(w, "  failure path         %s\n", r.Pinned.Sentence)
		switch {
		case !r.Pinned.Replays:
			fmt.Fprintf(w, "                       (it does not replay as a plain scenario: %s)\n", r.Pinned.WhyNot)
		case path != "":
			fmt.Fprintf(w, "  replay               redlocksim run %s --trace\n", path)
		default:
			fmt.Fprintf(w, "  replay               give --out FILE to write it as a scenario\n")
		}
	}
	if b := r.Breaks; b != nil {
		ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
		fmt.Fprintf(w, "  breaks at            a pause of %s of %v at %v breaks the lock on that path (%v does not); the path's own was %v\n",
			b.Client, ms(b.Breaks), ms(b.At), ms(b.Safe), ms(b.PathLength))
	} else {
		fmt.Fprintf(w, "  breaks at            -: %s\n", r.BreaksWhyNot)
	}
	if len(r.WhatIf) == 0 {
		return
	}
	fmt.Fprintf(w, "\n  what if              per acquisition, each estimated as above\n")
	fmt.Fprintf(w, "    %-16s %-9s %s\n", "as written", m.Property, perAcquisition(m))
	if r.Resource != nil {
		fmt.Fprintf(w, "    %-16s %-9s %s\n", "as written", r.Resource.Property, perAcquisition(r.Resource))
	}
	for _, x := range r.WhatIf {
		switch {
		case !x.Applies:
			fmt.Fprintf(w, "    %-16s %-9s does not apply: %s\n", x.Name, x.Property, x.Why)
		case x.Result == nil:
			fmt.Fprintf(w, "    %-16s %-9s not estimated (interrupted)\n", x.Name, x.Property)
		default:
			fmt.Fprintf(w, "    %-16s %-9s %s\n", x.Name, x.Property, perAcquisition(x.Result))
		}
	}
}

func what(prop string) string {
	if prop == "resource" {
		return "a violation is a lost update or a stale write the resource accepts"
	}
	return "a violation is two clients holding the lock at once"
}

func perAcquisition(res *estimate.Result) string {
	if res.UpperBound {
		return fmt.Sprintf("at most %.3g (none seen in %d runs: an upper bound, not an estimate)", res.PerAcquisitionHigh, res.EstimateRuns)
	}
	s := fmt.Sprintf("%.3g [%.3g, %.3g] ±%.0f%%", res.PerAcquisition, res.PerAcquisitionLow, res.PerAcquisitionHigh, 100*res.RelError)
	if !res.Trustworthy {
		s += " NOT TRUSTWORTHY"
	}
	return s
}

func perRun(res *estimate.Result) string {
	if res.UpperBound {
		return fmt.Sprintf("at most %.3g", res.CIHigh)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g]", res.Probability, res.CILow, res.CIHigh)
}

func method(m string) string {
	return map[string]string{"mc": "plain Monte Carlo", "is": "importance sampling", "splitting": "multilevel splitting"}[m]
}

func rate(perSecond float64) string {
	switch {
	case perSecond >= 1:
		return fmt.Sprintf("%.4g/s", perSecond)
	case perSecond*60 >= 1:
		return fmt.Sprintf("%.4g/min", perSecond*60)
	}
	return fmt.Sprintf("%.4g/h", perSecond*3600)
}

func percent(p float64) string {
	switch {
	case p >= 0.995:
		return fmt.Sprintf("%.4g%%", 100*p)
	case p >= 0.01:
		return fmt.Sprintf("%.0f%%", 100*p)
	}
	return fmt.Sprintf("%.2g", p)
}
