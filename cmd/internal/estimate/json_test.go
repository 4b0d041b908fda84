package estimate

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/redlocksim/redlocksim/sim"
)

// The --json document's bytes are a contract with scripts: its keys, their
// order, null for an interval with no violation seen, [] (not null) for
// empty lists, and the dominant path only when there is one.
func TestToJSONBytes(t *testing.T) {
	for _, c := range []struct {
		name   string
		res    Result
		pinned *Pinned
		want   string
	}{
		{"an estimate with a dominant path", Result{
			Property: "mutex", Method: IS, Why: "asked for with --method", Probability: 0.00125, CILow: 0.001, CIHigh: 0.0015, RelError: 0.2,
			Runs: 5000, EstimateRuns: 2000, Violations: 204, ESS: 39.5, LargestWeightShare: 0.0625,
			AcquisitionsPerRun: 104.5, PerAcquisition: 1.25e-5, PerAcquisitionLow: 1e-5, PerAcquisitionHigh: 1.5e-5,
			Trustworthy: true, Stopped: "±50% reached", Tilts: []sim.Tilt{{Stream: "pauses:*", Site: "length", Q: 0.0759, Shift: 2.82}},
		}, &Pinned{Sentence: "c2 pauses for 1.904s at 5.17s", Path: &Path{Seed: 3335109835233346480}}, `{
  "scenario": "pause-tail",
  "property": "mutex",
  "probability": 0.00125,
  "ci_low": 0.001,
  "ci_high": 0.0015,
  "rel_error": 0.2,
  "upper_bound_only": false,
  "method": "is",
  "why": "asked for with --method",
  "runs": 5000,
  "estimate_runs": 2000,
  "violations": 204,
  "ess": 39.5,
  "largest_weight_share": 0.0625,
  "per_acquisition": 0.0000125,
  "per_acquisition_ci_low": 0.00001,
  "per_acquisition_ci_high": 0.000015,
  "acquisitions_per_run": 104.5,
  "trustworthy": true,
  "problems": [],
  "stopped": "±50% reached",
  "tilted": [
    "pause lengths (pauses:*): 0.0759 of draws shifted by +2.82 σ"
  ],
  "dominant_path": "c2 pauses for 1.904s at 5.17s",
  "dominant_seed": 3335109835233346480
}
`},
		{"an upper bound", Result{
			Property: "resource", Method: MC, Why: "plain", CIHigh: 0.003, RelError: math.Inf(1), UpperBound: true,
			Runs: 1000, EstimateRuns: 1000, ESS: 1000, AcquisitionsPerRun: 2, PerAcquisitionHigh: 0.0015,
			Problems: []string{"too few violating runs"}, Stopped: "--max-runs reached",
		}, nil, `{
  "scenario": "pause-tail",
  "property": "resource",
  "probability": 0,
  "ci_low": 0,
  "ci_high": 0.003,
  "rel_error": null,
  "upper_bound_only": true,
  "method": "mc",
  "why": "plain",
  "runs": 1000,
  "estimate_runs": 1000,
  "violations": 0,
  "ess": 1000,
  "largest_weight_share": 0,
  "per_acquisition": 0,
  "per_acquisition_ci_low": 0,
  "per_acquisition_ci_high": 0.0015,
  "acquisitions_per_run": 2,
  "trustworthy": false,
  "problems": [
    "too few violating runs"
  ],
  "stopped": "--max-runs reached",
  "tilted": []
}
`},
	} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ") // as runjson.Print, which the command prints with
		if err := enc.Encode(ToJSON("pause-tail", &c.res, c.pinned)); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, b.String(), c.want)
		}
	}
}
