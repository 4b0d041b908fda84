package main

import (
	"fmt"
	"strings"
)

// columnLabels are the human names of a sweep's result columns (the
// results file's and the raw file's), with their units. A test checks
// that every column sweeprun writes has one.
var columnLabels = map[string]string{
	"runs":                           "runs per point",
	"mutex_violation_runs":           "runs with a mutual-exclusion violation",
	"mutex_violation_rate":           "mutex violation rate",
	"mutex_ci_low":                   "mutex violation rate, 95% interval low",
	"mutex_ci_high":                  "mutex violation rate, 95% interval high",
	"violations_per_1k_acquisitions": "mutex violations per 1,000 acquisitions",
	"mutex_overlap_ms_mean":          "mean overlap per run (ms)",
	"resource_violation_runs":        "runs with a resource violation",
	"resource_violation_rate":        "resource violation rate",
	"resource_ci_low":                "resource violation rate, 95% interval low",
	"resource_ci_high":               "resource violation rate, 95% interval high",
	"lost_updates_mean":              "lost updates per run",
	"stale_writes_accepted_mean":     "stale writes accepted per run",
	"stale_writes_rejected_mean":     "stale writes rejected per run",
	"acquisitions_mean":              "acquisitions per run",
	"acquire_failures_mean":          "failed acquisitions per run",
	"acquire_p99_ms":                 "acquisition latency, p99 (ms)",
	"unavailable_ms_mean":            "unavailable time per run (ms)",
	"longest_outage_ms_max":          "longest outage (ms)",
	// the averaged columns' 95% intervals
	"violations_per_1k_acquisitions_ci_low":  "mutex violations per 1,000 acquisitions, 95% interval low",
	"violations_per_1k_acquisitions_ci_high": "mutex violations per 1,000 acquisitions, 95% interval high",
	"mutex_overlap_ms_mean_ci_low":           "mean overlap per run (ms), 95% interval low",
	"mutex_overlap_ms_mean_ci_high":          "mean overlap per run (ms), 95% interval high",
	"lost_updates_mean_ci_low":               "lost updates per run, 95% interval low",
	"lost_updates_mean_ci_high":              "lost updates per run, 95% interval high",
	"stale_writes_accepted_mean_ci_low":      "stale writes accepted per run, 95% interval low",
	"stale_writes_accepted_mean_ci_high":     "stale writes accepted per run, 95% interval high",
	"stale_writes_rejected_mean_ci_low":      "stale writes rejected per run, 95% interval low",
	"stale_writes_rejected_mean_ci_high":     "stale writes rejected per run, 95% interval high",
	"acquisitions_mean_ci_low":               "acquisitions per run, 95% interval low",
	"acquisitions_mean_ci_high":              "acquisitions per run, 95% interval high",
	"acquire_failures_mean_ci_low":           "failed acquisitions per run, 95% interval low",
	"acquire_failures_mean_ci_high":          "failed acquisitions per run, 95% interval high",
	"acquire_p99_ms_ci_low":                  "acquisition latency, p99 (ms), 95% interval low",
	"acquire_p99_ms_ci_high":                 "acquisition latency, p99 (ms), 95% interval high",
	"unavailable_ms_mean_ci_low":             "unavailable time per run (ms), 95% interval low",
	"unavailable_ms_mean_ci_high":            "unavailable time per run (ms), 95% interval high",
	// the raw file's
	"mutex_violations":      "mutual-exclusion violations",
	"mutex_overlap_ms":      "overlap (ms)",
	"lost_updates":          "lost updates",
	"stale_writes_accepted": "stale writes accepted",
	"stale_writes_rejected": "stale writes rejected",
	"writes_accepted":       "writes accepted",
	"acquire_attempts":      "acquire attempts",
	"acquire_successes":     "acquisitions",
	"acquire_failures":      "failed acquisitions",
	"acquire_p50_ms":        "acquisition latency, p50 (ms)",
	"unavailable_ms":        "unavailable time (ms)",
	"longest_outage_ms":     "longest outage (ms)",
	"replicate":             "replicate",
	"seed":                  "seed",
}

// keyNames are the human names of the scenario keys sweeps use most; any
// other key is named from its path (humanKey). The unit is added from
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

// humanKey names any dotted scenario key from its path:
// nodes.node[2].min_replicas_max_lag → "nodes node[2] min replicas max lag".
func humanKey(key string) string {
	if n, ok := keyNames[key]; ok {
		return n
	}
	if n, ok := columnLabels[key]; ok {
		return n
	}
	k := strings.ReplaceAll(key, ".", " ")
	for _, unit := range []string{"_ppm", "_ms"} {
		k = strings.TrimSuffix(k, unit)
	}
	return strings.ReplaceAll(k, "_", " ")
}

// labeller names keys and columns on a figure: the user's --label texts
// first, then the built-in names, with units.
type labeller map[string]string

func parseLabels(specs []string) (labeller, error) {
	l := labeller{}
	for _, s := range specs {
		k, v, ok := strings.Cut(s, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--label wants key=text, like --label 'lock.ttl=TTL (s)', got %q", s)
		}
		l[k] = v
	}
	return l, nil
}

// unit is a key's or column's unit, from its values or its name.
func unit(key string, kind colKind) string {
	if kind == kindDuration {
		return "s"
	}
	for _, u := range []string{"ppm", "ms"} {
		if strings.HasSuffix(key, "_"+u) || strings.Contains(key, "_"+u+"_") {
			return u
		}
	}
	return ""
}

// axis is the text of an axis: "server clock rate (ppm)", "lock TTL (s)",
// "mutex violation rate"; a --label text stands as given.
func (l labeller) axis(key string, kind colKind) string {
	if t, ok := l[key]; ok {
		return t
	}
	if t, ok := columnLabels[key]; ok {
		return t
	}
	name := humanKey(key)
	if u := unit(key, kind); u != "" && !strings.HasSuffix(name, ")") {
		return name + " (" + u + ")"
	}
	return name
}

// name is a key's name without a unit, for titles and legends.
func (l labeller) name(key string) string {
	if t, ok := l[key]; ok {
		return t
	}
	return humanKey(key)
}

// legend is a series' legend entry: "server clock rate 20000 ppm",
// "lock TTL 10s", "persistence always".
func (l labeller) legend(key, value string, kind colKind) string {
	u := unit(key, kind)
	if _, user := l[key]; user || u == "" || kind == kindDuration {
		return l.name(key) + " " + value
	}
	return l.name(key) + " " + value + " " + u
}
