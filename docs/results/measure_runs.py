#!/usr/bin/env python3
"""Measure runs per second: the headline sweep and the baseline world vs SimPy.

usage: measure_runs.py OLD NEW [REPS] [SEEDS]
OLD and NEW are directories each holding, built from one commit,
sweeprun.test and model.test (go test -c) and the redlocksim binary (go
build ./cmd/redlocksim). Prints a summary; the raw numbers go to stderr
as JSON.

Every figure is CPU time (user + system), as in measure.py, for the same
reason: on a shared machine wall time counts the waits for a core. The
measures, each once per repetition, the order reversed every other
repetition so that old and new alternate:
- sweeprun.BenchmarkSweep/workers=1 (ttl-vs-drift at 4 seeds, 100 runs):
  CPU per op from two iteration counts, as measure.py does;
- the real `redlocksim sweep ttl-vs-drift --seeds SEEDS --workers 2`
  (25 × SEEDS runs), the whole process's CPU time, and its wall time;
- model.BenchmarkBaselineWorld, the new binary's, and the SimPy 2 model
  model/testdata/simpy/baseline.py in the first three repetitions (its
  own CPU time per run, measured inside Python after the import); the
  ratio is the median of the three rounds' ratios.
A ratio is the median over repetitions of the ratio within one.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

old, new = sys.argv[1], sys.argv[2]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7
seeds = int(sys.argv[4]) if len(sys.argv) > 4 else 40
here = os.path.dirname(os.path.abspath(__file__))


def rusage_cpu(args, **kw):
    """Runs args; returns its CPU seconds and wall seconds."""
    start = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("%s failed" % " ".join(args))
    return ru.ru_utime + ru.ru_stime, time.monotonic() - start


def per_op(binary, bench, n1, n2):
    def cpu(n):
        return rusage_cpu([binary, "-test.run", "^$", "-test.bench", bench,
                           "-test.benchtime", "%dx" % n, "-test.count", "1"], cwd="/tmp")[0]
    return (cpu(n2) - cpu(n1)) / (n2 - n1)


def real_sweep(binary):
    """CPU and wall seconds per run of the real sweep."""
    with tempfile.TemporaryDirectory() as d:
        cpu, wall = rusage_cpu([binary, "sweep", "ttl-vs-drift", "--seeds", str(seeds), "--workers", "2",
                                "--out", os.path.join(d, "r.csv")], cwd=d)
    runs = 25 * seeds
    return cpu / runs, wall / runs


def simpy_per_run(runs=4):
    script = os.path.join(here, "..", "..", "model", "testdata", "simpy", "baseline.py")
    out = subprocess.run(["/usr/bin/python3", script, "1", str(runs)], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["cpu_s_per_run"]


measures = {
    "old bench sweep": lambda: per_op(os.path.join(old, "sweeprun.test"), "^BenchmarkSweep$/^workers=1$", 1, 3) / 100,
    "new bench sweep": lambda: per_op(os.path.join(new, "sweeprun.test"), "^BenchmarkSweep$/^workers=1$", 1, 3) / 100,
    "old real sweep": lambda: real_sweep(os.path.join(old, "redlocksim")),
    "new real sweep": lambda: real_sweep(os.path.join(new, "redlocksim")),
    "old baseline": lambda: per_op(os.path.join(old, "model.test"), "^BenchmarkBaselineWorld$", 5, 20),
    "new baseline": lambda: per_op(os.path.join(new, "model.test"), "^BenchmarkBaselineWorld$", 5, 20),
    "simpy baseline": simpy_per_run,
}
res = {k: [] for k in measures}
order = list(measures)
for r in range(reps):
    for name in (order if r % 2 == 0 else order[::-1]):
        if name == "simpy baseline" and r >= 3:
            continue  # three rounds, alternated with the Go baseline
        res[name].append(measures[name]())
    print("repetition %d done" % (r + 1), file=sys.stderr, flush=True)
json.dump(res, sys.stderr, indent=1)
print(file=sys.stderr)


def cpu_of(name):
    return [x[0] if isinstance(x, tuple) else x for x in res[name]]


def ratio(a, b, k=None):
    return statistics.median(x / y for x, y in list(zip(cpu_of(a), cpu_of(b)))[:k])


for k in measures:
    v = cpu_of(k)
    print("- %s: median %.3f ms of CPU a run (%.3f to %.3f) over %d" % (k, 1e3 * statistics.median(v), 1e3 * min(v), 1e3 * max(v), len(v)))
for k in ("old real sweep", "new real sweep"):
    print("- %s: median wall %.3f ms a run on 2 workers" % (k, 1e3 * statistics.median(x[1] for x in res[k])))
print("- BenchmarkSweep runs/s, new / old: %.3f" % ratio("old bench sweep", "new bench sweep"))
print("- real sweep runs per CPU-second, new / old: %.3f" % ratio("old real sweep", "new real sweep"))
print("- real sweep wall runs/s, new / old: %.3f" % statistics.median(o[1] / n[1] for o, n in zip(res["old real sweep"], res["new real sweep"])))
print("- baseline world, new / old CPU: %.3f" % ratio("new baseline", "old baseline"))
print("- SimPy / new baseline: %.1f (median of %d rounds); SimPy / old baseline: %.1f" % (
    ratio("simpy baseline", "new baseline", 3), len(res["simpy baseline"]), ratio("simpy baseline", "old baseline", 3)))
