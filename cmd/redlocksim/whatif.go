package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/redlocksim/redlocksim/cmd/internal/whatif"
	"github.com/redlocksim/redlocksim/scenarios"
)

// runWhatIf is run --what-if: the scenario as written and once per remedy,
// at one seed, in one table.
func runWhatIf(stdout io.Writer, arg string, seed uint64, f *runFlags) error {
	var clash []string
	for _, o := range []struct {
		on   bool
		flag string
	}{{bool(f.json), "--json"}, {f.trace, "--trace"}, {f.timeline != "", "--timeline"}, {f.perfetto != "", "--perfetto"}} {
		if o.on {
			clash = append(clash, o.flag)
		}
	}
	if len(clash) > 0 {
		return badRun("--what-if prints a table of several runs; %s would apply to one: run a row's replay command with it", strings.Join(clash, ", "))
	}
	remedies, err := scenarios.ParseRemedies(f.whatIf)
	if err != nil {
		return badRun("%v", err)
	}
	rows, err := whatif.Table(arg, f.sets, seed, remedies, func(sets []string) string {
		return strings.TrimSuffix(replayCommand(arg, seed, sets), " --trace")
	})
	if err != nil {
		return badRun("%s: %v", arg, err)
	}
	writeWhatIf(stdout, arg, seed, rows)
	if f.failOnViolation && (!rows[0].Result.MutexSafe() || !rows[0].Result.ResourceSafe()) {
		return finding(nil)
	}
	return nil
}

func writeWhatIf(w io.Writer, arg string, seed uint64, rows []whatif.Row) {
	fmt.Fprintf(w, "%s (seed %d), what if\n\n", arg, seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "remedy\tmutex\tresource\tavailability\toverrides")
	var skipped []whatif.Row
	for _, r := range rows {
		if !r.Applies {
			skipped = append(skipped, r)
			continue
		}
		sets := strings.Join(r.Sets, " ")
		if sets == "" {
			sets = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Remedy, verdictWord(r.Result.MutexSafe()), verdictWord(r.Result.ResourceSafe()),
			whatif.Availability(r.Result), sets)
	}
	tw.Flush()
	if len(skipped) > 0 {
		fmt.Fprintln(w, "\nnot applicable")
		for _, r := range skipped {
			fmt.Fprintf(w, "  %-16s %s\n", r.Remedy, r.Why)
		}
	}
	fmt.Fprintln(w, "\nreplay a row with")
	for _, r := range rows {
		if r.Applies {
			fmt.Fprintf(w, "  %-16s %s --trace\n", r.Remedy, r.Replay)
		}
	}
}
