package estimate

import "math"

// JSON is `redlocksim estimate --json`: one estimate, its keys fixed for
// scripts.
type JSON struct {
	Scenario             string   `json:"scenario"`
	Property             string   `json:"property"`
	Probability          float64  `json:"probability"`
	CILow                float64  `json:"ci_low"`
	CIHigh               float64  `json:"ci_high"`
	RelError             *float64 `json:"rel_error"` // null with no violation seen
	UpperBoundOnly       bool     `json:"upper_bound_only"`
	Method               string   `json:"method"`
	Why                  string   `json:"why"`
	Runs                 int      `json:"runs"`
	EstimateRuns         int      `json:"estimate_runs"`
	Violations           int      `json:"violations"`
	ESS                  float64  `json:"ess"`
	LargestWeightShare   float64  `json:"largest_weight_share"`
	PerAcquisition       float64  `json:"per_acquisition"`
	PerAcquisitionCILow  float64  `json:"per_acquisition_ci_low"`
	PerAcquisitionCIHigh float64  `json:"per_acquisition_ci_high"`
	AcquisitionsPerRun   float64  `json:"acquisitions_per_run"`
	Trustworthy          bool     `json:"trustworthy"`
	Problems             []string `json:"problems"`
	Stopped              string   `json:"stopped"`
	Tilted               []string `json:"tilted"`
	DominantPath         string   `json:"dominant_path,omitempty"`
	DominantSeed         uint64   `json:"dominant_seed,omitempty"`
}

// ToJSON is the estimate res of scenario name as JSON, with its dominant
// failure path pinned (nil when none was seen). Empty lists stay [], not
// null, so scripts can range over them.
func ToJSON(name string, res *Result, pinned *Pinned) JSON {
	j := JSON{
		Scenario: name, Property: res.Property, Probability: res.Probability, CILow: res.CILow, CIHigh: res.CIHigh,
		UpperBoundOnly: res.UpperBound, Method: res.Method, Why: res.Why, Runs: res.Runs, EstimateRuns: res.EstimateRuns,
		Violations: res.Violations, ESS: res.ESS, LargestWeightShare: res.LargestWeightShare,
		PerAcquisition: res.PerAcquisition, PerAcquisitionCILow: res.PerAcquisitionLow, PerAcquisitionCIHigh: res.PerAcquisitionHigh,
		AcquisitionsPerRun: res.AcquisitionsPerRun, Trustworthy: res.Trustworthy, Problems: res.Problems, Stopped: res.Stopped,
		Tilted: []string{},
	}
	if j.Problems == nil {
		j.Problems = []string{}
	}
	if !math.IsInf(res.RelError, 0) {
		r := res.RelError
		j.RelError = &r
	}
	for _, t := range res.Tilts {
		j.Tilted = append(j.Tilted, Describe(t))
	}
	if pinned != nil {
		j.DominantPath, j.DominantSeed = pinned.Sentence, pinned.Path.Seed
	}
	return j
}
