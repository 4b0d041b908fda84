package results

import (
	"fmt"
	"strconv"
)

// Rate is a count of events over an exposure (acquisitions, hours), with
// Garwood's exact 95% interval (PoissonRate). A zero count has a positive
// upper end, −ln 0.025/Exposure ≈ 3.689/Exposure. Without exposure
// (Exposure 0: no acquisition, no time) Measured is false and the rate
// and its interval are 0, meaningless.
type Rate struct {
	Count    int64   `json:"count"`
	Exposure float64 `json:"exposure"`
	Rate     float64 `json:"rate"`
	Low      float64 `json:"ci_low"`
	High     float64 `json:"ci_high"`
	Measured bool    `json:"measured"`
}

// NewRate is k events over exposure, with its interval.
func NewRate(k int64, exposure float64) Rate {
	r, lo, hi, ok := PoissonRate(k, exposure)
	return Rate{Count: max(k, 0), Exposure: max(exposure, 0), Rate: r, Low: lo, High: hi, Measured: ok}
}

// Cells are the rate and its interval's ends as a results file writes
// them (Sig), or three empty cells when nothing was measured.
func (r Rate) Cells() []string {
	if !r.Measured {
		return []string{"", "", ""}
	}
	return []string{Sig(r.Rate), Sig(r.Low), Sig(r.High)}
}

// String is the rate for a person, to three digits: "4.1e-05 (95%
// interval 1.32e-05 to 9.57e-05)", or at a zero count "0 (95% upper
// bound 3.69e-06)".
func (r Rate) String() string {
	if !r.Measured {
		return "not measured (no exposure)"
	}
	if r.Count == 0 {
		return fmt.Sprintf("0 (95%% upper bound %.3g)", r.High)
	}
	return fmt.Sprintf("%.3g (95%% interval %.3g to %.3g)", r.Rate, r.Low, r.High)
}

// Sig writes a rate with six significant digits, in exponent form below
// 1e-4 (3.68888e-06): a results file's fixed six decimals would write
// every rate under 5e-7 as 0, and the rates of rare events go to 1e-9.
func Sig(f float64) string {
	if f == 0 {
		return "0"
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}
