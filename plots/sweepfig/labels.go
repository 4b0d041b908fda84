package sweepfig

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// columnLabel is a result column's human name and its unit: a column's
// axis reads "name (unit)", its title and legend the name alone.
type columnLabel struct{ name, unit string }

// columnLabels are the human names, with their units, of the columns that
// are not results columns (those have theirs in package results: see
// columnLabelOf): the point, replicate and seed, and the analytic and
// onset columns. A test checks that every column sweeprun writes has a
// label with a unit.
var columnLabels = map[string]columnLabel{
	"point":     {"point", "index"},
	"replicate": {"replicate", "index"},
	"seed":      {"seed", "number"},
	// sweep --analytic's, and the onset curve's (boundary --over): the
	// unit is the key's they are about (see unitFrom)
	"analytic_onset_low":  {"predicted onset, low end", ""},
	"analytic_onset_high": {"predicted onset, high end", ""},
	"safe":                {"onset, last safe value", ""},
	"violating":           {"onset, first violating value", ""},
	"tol":                 {"bisection tolerance", ""},
	"analytic_onset":      {"predicted onset", ""},
	"analytic_low":        {"predicted onset, low end", ""},
	"analytic_high":       {"predicted onset, high end", ""},
	"seeds":               {"seeds per probe", "count"},
	"first_seed":          {"first seed", "number"},
	"probes":              {"values probed", "count"},
}

// columnLabelOf is a column's label: its own, or for COLUMN_ci_low and
// COLUMN_ci_high COLUMN's with the interval's end named.
func columnLabelOf(col string) (columnLabel, bool) {
	if c, end, ok := results.Lookup(col); ok {
		if end != "" {
			return columnLabel{c.Label + ", 95% interval " + end, c.Unit}, true
		}
		return columnLabel{c.Label, c.Unit}, true
	}
	if l, ok := columnLabels[col]; ok {
		return l, true
	}
	for _, end := range []string{"low", "high"} {
		if base, ok := strings.CutSuffix(col, "_ci_"+end); ok {
			if l, ok := columnLabels[base]; ok {
				return columnLabel{l.name + ", 95% interval " + end, l.unit}, true
			}
		}
	}
	return columnLabel{}, false
}

// keyNames are the human names of the scenario keys sweeps use most; any
// other key is named from its path (HumanKey). The unit is added from
// the column's values (durations in seconds) or the key's suffix (ppm).
var keyNames = map[string]string{
	"lock.ttl":                     "lock TTL",
	"lock.drift_factor":            "drift factor",
	"lock.drift_const":             "drift constant",
	"lock.request_timeout":         "request timeout",
	"lock.retries":                 "retries",
	"lock.retry_delay":             "retry delay",
	"lock.algorithm":               "lock algorithm",
	"lock.elapsed_clock":           "clock for elapsed time",
	"lock.wait_replicas":           "replicas to WAIT for",
	"nodes.count":                  "Redis nodes",
	"nodes.clock.rate_ppm":         "server clock rate",
	"nodes.clock.rate_spread_ppm":  "server clock rate spread",
	"nodes.persistence":            "persistence",
	"nodes.restart_delay":          "restart delay",
	"nodes.fsync_every":            "fsync period",
	"nodes.replication_delay":      "replication delay",
	"clients.count":                "clients",
	"clients.clock.rate_ppm":       "client clock rate",
	"clients.pauses.every":         "mean time between pauses",
	"clients.pauses.length.median": "median pause",
	"clients.pauses.length.mean":   "mean pause",
	"workload.critical_section":    "critical section",
	"resource.mode":                "resource protection",
	"resource.tokens":              "fencing tokens",
	"network.loss":                 "message loss",
	"network.latency.mean":         "mean network latency",
}

// HumanKey names any dotted scenario key from its path:
// nodes.node[2].min_replicas_max_lag → "nodes node[2] min replicas max lag".
func HumanKey(key string) string {
	if n, ok := keyNames[key]; ok {
		return n
	}
	if d, ok := durationKey(key); ok {
		return HumanKey(d)
	}
	if l, ok := columnLabelOf(key); ok {
		return l.name
	}
	k := strings.ReplaceAll(key, ".", " ")
	for _, unit := range []string{"_ppm", "_ms"} {
		k = strings.TrimSuffix(k, unit)
	}
	return strings.ReplaceAll(k, "_", " ")
}

// Labels name keys and columns on a figure: the user's --label texts
// (key → text) first, then the built-in names, with units.
type Labels map[string]string

// ParseLabels reads --label key=text flags.
func ParseLabels(specs []string) (Labels, error) {
	l := Labels{}
	for _, s := range specs {
		k, v, ok := strings.Cut(s, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--label wants key=text, like --label 'lock.ttl=TTL', got %q", s)
		}
		l[k] = v
	}
	return l, nil
}

// ppmPercent is the least magnitude at which a ppm column is shown in
// percent: 1000 ppm = 0.1%, and 60000 ppm reads better as 6%.
const ppmPercent = 1000

// scale is how a column's values are shown: multiplied by factor, in unit
// ("" for none), with note added to the unit ("positive = fast").
type scale struct {
	factor     float64
	unit, note string
}

// scaleOf is how to show column key, whose values (as read; durations in
// seconds) are vs: a ppm column whose largest magnitude is at least
// ppmPercent in percent, any other in its unit; implied, when not "", is
// the key whose unit the column carries when neither its name nor its
// values give one (an onset is in its key's unit). A clock rate's unit
// says which sign is fast. A --label text that gives its own unit takes
// the values as the CSV has them.
func (l Labels) scaleOf(key string, kind results.ValueKind, vs []float64, implied string) scale {
	s := scale{factor: 1, unit: unit(key, kind)}
	if c, ok := columnLabelOf(key); ok && c.unit != "" {
		s.unit = c.unit
	}
	rate := strings.HasSuffix(key, "rate_ppm")
	if s.unit == "" && implied != "" {
		s.unit = unit(implied, kind)
		rate = strings.HasSuffix(implied, "rate_ppm")
	}
	if t, ok := l[key]; ok {
		if _, _, own := userUnit(t); own {
			return scale{factor: 1}
		}
	}
	if s.unit == "ppm" {
		if rate {
			s.note = "positive = fast"
		}
		var top float64
		for _, v := range vs {
			if !math.IsNaN(v) {
				top = math.Max(top, math.Abs(v))
			}
		}
		if top >= ppmPercent {
			s.factor, s.unit = 1e-4, "%"
		}
	}
	return s
}

// unitText is what an axis says in parentheses: "%, positive = fast".
func (s scale) unitText() string {
	switch {
	case s.unit == "":
		return s.note
	case s.note == "":
		return s.unit
	}
	return s.unit + ", " + s.note
}

// durationKey is the key whose seconds column is col (lock.ttl for
// lock.ttl_s, sweep.SecondsSuffix).
func durationKey(col string) (string, bool) {
	key, ok := strings.CutSuffix(col, "_s")
	return key, ok && strings.Contains(key, ".")
}

// unit is a key's or column's unit, from its values or its name.
func unit(key string, kind results.ValueKind) string {
	if _, secs := durationKey(key); kind == results.Durations || secs {
		return "s"
	}
	for _, u := range []string{"ppm", "ms"} {
		if strings.HasSuffix(key, "_"+u) || strings.Contains(key, "_"+u+"_") {
			return u
		}
	}
	return ""
}

// userUnit splits a --label text that gives its own unit, "TTL
// (seconds)", into its name and that unit; ok is false for a text
// without one ("TTL", which keeps the key's unit).
func userUnit(text string) (name, unit string, ok bool) {
	body, found := strings.CutSuffix(text, ")")
	i := strings.LastIndex(body, " (")
	if !found || i <= 0 {
		return text, "", false
	}
	return body[:i], body[i+2:], true
}

// axis is the text of an axis: "server clock rate (%, positive = fast)",
// "lock TTL (s)", "mutex violations (fraction of runs)". A --label text
// replaces the name and keeps the unit, unless it gives one itself.
func (l Labels) axis(key string, s scale) string {
	if t, ok := l[key]; ok {
		if _, _, own := userUnit(t); own {
			return t
		}
	}
	name := l.name(key)
	if u := s.unitText(); u != "" {
		return name + " (" + u + ")"
	}
	return name
}

// name is a key's name without a unit, for titles and legends: a --label
// text without the unit it gives.
func (l Labels) name(key string) string {
	if t, ok := l[key]; ok {
		name, _, _ := userUnit(t)
		return name
	}
	return HumanKey(key)
}

// legend is a series' legend entry: "server clock rate +2%", "lock TTL
// 10s", "server clock rate 500 ppm"; with a --label that gives its unit,
// the value as the CSV has it and that unit: "drift 20000 (ppm)". A value
// that is a word names its series by itself, "redlock", "always": the
// title says which key the lines are of ("one line per persistence"),
// and a number needs its key's name to say what it counts.
func (l Labels) legend(key, value string, kind results.ValueKind, s scale) string {
	if kind == results.Words {
		return value
	}
	name := l.name(key)
	if t, ok := l[key]; ok {
		if _, u, own := userUnit(t); own {
			if kind == results.Numbers {
				return name + " " + value + " (" + u + ")"
			}
			return name + " " + value // a duration
		}
	}
	switch {
	case kind == results.Durations || s.unit == "":
		return name + " " + value
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return name + " " + value
	}
	shown := formatValue(v * s.factor)
	if s.note != "" && v > 0 {
		shown = "+" + shown
	}
	if s.unit == "%" {
		return name + " " + shown + "%"
	}
	return name + " " + shown + " " + s.unit
}

// formatValue prints a scaled value without float noise: 0.5, 2, 0.05.
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// IntervalMethod says what the interval columns of col are, as the sweep
// writes them (package sweeprun's doc), as one interval and as many:
// Wilson score intervals for the rates over runs, Garwood's for the
// rates over acquisitions and hours, Student t for the means, the
// delta method for the pooled ratio. A column the sweep does not write
// has whatever interval its CSV gives.
func IntervalMethod(col string) (one, many string) {
	if c, end, ok := results.Lookup(col); ok && end == "" {
		switch c.CI {
		case results.WilsonInterval:
			return "95% Wilson score interval", "95% Wilson score intervals"
		case results.GarwoodInterval:
			return "exact 95% Poisson (Garwood) interval", "exact 95% Poisson (Garwood) intervals"
		case results.DeltaRatio:
			return "95% interval (delta method for the pooled ratio, Student t)",
				"95% intervals (delta method for the pooled ratio, Student t)"
		}
	}
	if c, ok := columnLabelOf(col); ok && c.unit != results.FractionOfRuns {
		return "95% Student t interval of the mean over the runs", "95% Student t intervals of the mean over the runs"
	}
	low, high := results.IntervalColumns(col)
	return "interval from the CSV's " + low + " and " + high, "intervals from the CSV's " + low + " and " + high
}
