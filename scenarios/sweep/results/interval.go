package results

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Z95 is the standard normal quantile for a two-sided 95% interval.
const Z95 = 1.959963984540054

// alpha95 is the two-sided error of a 95% interval: 0.025 in each tail.
const alpha95 = 0.05

// Wilson is the 95% Wilson score interval for k successes in n trials:
// center (p + z²/2n)/(1 + z²/n), half-width z·√(p(1−p)/n + z²/4n²)/(1 + z²/n),
// clamped to [0, 1]; exactly 0 below when k = 0 and 1 above when k = n.
// With n = 0 it is [0, 1].
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := Z95 * Z95
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := Z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	lo, hi = max(0, center-half), min(1, center+half)
	if k <= 0 {
		lo = 0
	}
	if k >= n {
		hi = 1
	}
	return lo, hi
}

// ClopperPearson is the exact 95% interval for k successes in n trials,
// from the beta quantiles: lo = B(0.025; k, n−k+1), hi = B(0.975; k+1, n−k),
// with lo = 0 at k = 0 and hi = 1 at k = n. Its coverage is at least 95%
// for every true proportion (Wilson's is 95% on average, and dips below).
// With n = 0 it is [0, 1].
func ClopperPearson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	k = min(max(k, 0), n)
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha95 / 2)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha95/2)
	}
	return lo, hi
}

// Garwood is the exact 95% interval (Garwood, 1936) for the mean μ of a
// Poisson count of which k were seen: lo = χ²(0.025; 2k)/2 and
// hi = χ²(0.975; 2k+2)/2, the μ at which seeing k or more, or k or fewer,
// has probability 0.025. With k = 0, lo = 0 and hi = −ln 0.025 ≈ 3.689:
// the "rule of three" made exact for 95%. Its coverage is at least 95%
// for every μ. A negative k is taken as 0.
func Garwood(k int64) (lo, hi float64) {
	k = max(k, 0)
	if k > 0 {
		lo = distuv.ChiSquared{K: float64(2 * k)}.Quantile(alpha95/2) / 2
	}
	hi = distuv.ChiSquared{K: float64(2*k + 2)}.Quantile(1-alpha95/2) / 2
	return lo, hi
}

// PoissonRate is the rate of k events over an exposure (acquisitions,
// hours: any unit, positive) and Garwood's exact 95% interval on it, the
// count's interval divided by the exposure. It assumes the events arrive
// independently (a Poisson count); events that come in bursts make the
// interval too narrow, and a per-run proportion (Wilson) is then the
// cautious figure. ok is false, and the rate and bounds 0, when the
// exposure is not positive: no rate was measured.
func PoissonRate(k int64, exposure float64) (rate, lo, hi float64, ok bool) {
	if !(exposure > 0) {
		return 0, 0, 0, false
	}
	clo, chi := Garwood(k)
	return float64(max(k, 0)) / exposure, clo / exposure, chi / exposure, true
}
