#!/usr/bin/env python3
"""Measure the table of docs/results/benchmarks.md on a shared machine.

usage: measure.py OLD NEW [REPS]
OLD and NEW are directories each holding test binaries built from one
commit (go test -c): sim.test, model.test and sweeprun.test (OLD needs no
model benchmark of the baseline world). Prints the table as markdown and
the raw numbers as JSON on stderr.

Every figure is CPU time (user + system of the benchmark process), not
wall time: on a machine shared with other builds and tests, wall time
counts the time a process waits for a core; CPU time does not. Each
benchmark runs twice, with n1 and n2 iterations (-test.benchtime Nx), and
the cost per op is (cpu(n2) - cpu(n1)) / (n2 - n1), so that process
start-up and the benchmark's setup cancel out. In each repetition every
measure runs once, the order reversed every other repetition (old and new
alternate); a ratio is the median over repetitions of the ratio within
one repetition, so both sides of a ratio ran at the same moment.
"""
import json
import os
import statistics
import subprocess
import sys

old, new = sys.argv[1], sys.argv[2]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7


def cpu(binary, bench, n):
    p = subprocess.Popen([binary, "-test.run", "^$", "-test.bench", bench,
                          "-test.benchtime", "%dx" % n, "-test.count", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/tmp")
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("%s -test.bench %s failed" % (binary, bench))
    return ru.ru_utime + ru.ru_stime


def per_op(binary, bench, n1, n2):
    return (cpu(binary, bench, n2) - cpu(binary, bench, n1)) / (n2 - n1) * 1e9


def world_events(binary, n1, n2):
    """Events in the world benchmark's iterations n1+1..n2 (seeds differ)."""
    total = {}
    for n in (n1, n2):
        out = subprocess.run([binary, "-test.run", "^$", "-test.bench", "^BenchmarkRedlockWorld$",
                              "-test.benchtime", "%dx" % n], capture_output=True, text=True, cwd="/tmp").stdout
        f = out.split()
        ns_op, ns_event = float(f[f.index("ns/op") - 1]), float(f[f.index("ns/event") - 1])
        total[n] = n * ns_op / ns_event
    return (total[n2] - total[n1]) / (n2 - n1)


def simpy_per_run(runs=4):
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model", "testdata", "simpy", "baseline.py")
    out = subprocess.run(["/usr/bin/python3", here, "1", str(runs)], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["cpu_s_per_run"] * 1e9


# name -> function of nothing returning ns per op
hold = {}
# N=20 is the world's anchor: its difference (10 M holds, about 0.5 s)
# is as long as the world's below, so that neither is swamped by the
# jitter of starting a process on a loaded machine.
for n, (n1, n2) in {20: (1_000_000, 11_000_000), 1000: (500_000, 2_000_000), 100000: (250_000, 1_000_000)}.items():
    # Every level of a -test.bench pattern is anchored at both ends:
    # "^BenchmarkHold/N=1000$" also runs BenchmarkHoldUniform/N=1000 (and
    # "^BenchmarkSweep/workers=1$" runs BenchmarkSweepScaling's loop, two
    # more sweeps an op, unreported), and CPU time counts them all.
    b = "^Benchmark%%s$/^N=%d$" % n
    hold["bare heap, N=%d" % n] = (os.path.join(new, "sim.test"), b % "BareHeap", n1, n2)
    if n != 20:  # the old kernel's benchmark had N=10 for its short queue
        hold["old Hold, N=%d" % n] = (os.path.join(old, "sim.test"), b % "Hold", n1, n2)
    hold["new Hold, N=%d" % n] = (os.path.join(new, "sim.test"), b % "Hold", n1, n2)
measures = dict(hold)
# The world benchmark's setup (its own bare-heap timing, five million
# holds, and a run to measure the queue's length) costs about as much as
# six runs, and varies: a difference of ten runs, not three, keeps it
# from deciding the figure (1 and 4 gave one world 14 to 101 ms a run in
# one measurement).
measures["old world"] = (os.path.join(old, "model.test"), "^BenchmarkRedlockWorld$", 2, 12)
measures["new world"] = (os.path.join(new, "model.test"), "^BenchmarkRedlockWorld$", 2, 12)
measures["old sweep"] = (os.path.join(old, "sweeprun.test"), "^BenchmarkSweep$/^workers=1$", 1, 3)
measures["new sweep"] = (os.path.join(new, "sweeprun.test"), "^BenchmarkSweep$/^workers=1$", 1, 3)
measures["new baseline"] = (os.path.join(new, "model.test"), "^BenchmarkBaselineWorld$", 5, 20)

events_per_world = world_events(os.path.join(new, "model.test"), 2, 12)
res = {k: [] for k in measures}
res["simpy baseline"] = []
order = list(measures) + ["simpy baseline"]
for r in range(reps):
    for name in (order if r % 2 == 0 else order[::-1]):
        if name == "simpy baseline":
            if r < 3:  # three rounds, alternated with the Go baseline
                res[name].append(simpy_per_run())
            continue
        res[name].append(per_op(*measures[name]))
    print("repetition %d done" % (r + 1), file=sys.stderr)
    if os.environ.get("MEASURE_PARTIAL"):  # keep what is done if the run is cut short
        with open(os.environ["MEASURE_PARTIAL"], "w") as f:
            json.dump({"events_per_world": events_per_world, "res": res}, f)


def med(name):
    return statistics.median(res[name])


def ratio(a, b, k=None):
    pairs = list(zip(res[a], res[b]))[:k]
    return statistics.median(x / y for x, y in pairs)


json.dump(res, sys.stderr, indent=1)
print()
print("| benchmark | old ns/op | new ns/op | bare heap ns/op | old / bare | new / bare | new / old |")
print("|---|---|---|---|---|---|---|")
for n in (20, 1000, 100000):
    o, w, b = "old Hold, N=%d" % n, "new Hold, N=%d" % n, "bare heap, N=%d" % n
    if o not in res:
        print("| sim.BenchmarkHold, N=%d | - | %.0f | %.0f | - | %.2f | - |" % (n, med(w), med(b), ratio(w, b)))
        continue
    print("| sim.BenchmarkHold, N=%d | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f |" % (
        n, med(o), med(w), med(b), ratio(o, b), ratio(w, b), ratio(w, o)))
print()
print("world and sweep: CPU ns per op (a world run of 10 min; a sweep of 100 runs of 60 s)")
for k in ("old world", "new world", "old sweep", "new sweep", "new baseline", "simpy baseline"):
    print("- %s: median %.0f ns/op over %d" % (k, med(k), len(res[k])))
print("- events per world run: %.0f" % events_per_world)
for k in ("old world", "new world"):
    per_event = [x / events_per_world for x in res[k]]
    print("- %s: %.1f ns/event, %.2f x the bare heap at N=20" % (
        k, statistics.median(per_event), statistics.median(e / b for e, b in zip(per_event, res["bare heap, N=20"]))))
    print("  simulated years per core-day: %.1f" % (600 / (med(k) / 1e9) / 365.25))
print("- new world / old world: %.3f" % ratio("new world", "old world"))
print("- new sweep runs/s / old sweep runs/s: %.3f" % ratio("old sweep", "new sweep"))
print("- SimPy baseline / new baseline: %.1f (median of %d rounds)" % (ratio("simpy baseline", "new baseline", 3), len(res["simpy baseline"])))
