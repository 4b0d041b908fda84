#!/usr/bin/env python3
"""Measure the queue rows of docs/results/benchmarks.md: sim.BenchmarkHold
of several kernels against the bare binary heap, on a shared machine.

usage: measure_hold.py REPS DIR... (the last DIR is the new kernel)
Each DIR holds sim.test, built from one commit (go test -c ./sim). The
bare heap (BenchmarkBareHeap, and BenchmarkBareHeapUniform for the uniform
rows) runs from the last DIR. Prints a markdown table and the raw numbers
as JSON on stderr.

As in measure.py: every figure is CPU time (user + system) of the
benchmark process, the cost per op is (cpu(n2) - cpu(n1)) / (n2 - n1) so
that start-up, setup and warm-up cancel, each repetition runs every
measure once with the order reversed every other repetition (the kernels
alternate), and a ratio is the median over repetitions of the ratio within
one repetition. allocs/op and B/op are those the benchmark reports at n2
iterations, once per binary.
"""
import json
import os
import re
import statistics
import subprocess
import sys

reps, dirs = int(sys.argv[1]), [os.path.abspath(d) for d in sys.argv[2:]]
names = [os.path.basename(os.path.normpath(d)) for d in dirs]
# At 100,000 events the difference is 2.8 M ops: with measure.py's 0.75 M
# the figures ranged from -48 to 784 ns an op under a load of 30.
sizes = {20: (500_000, 2_000_000), 1000: (500_000, 2_000_000), 100000: (200_000, 3_000_000)}


def run(binary, bench, n, *extra):
    p = subprocess.Popen([binary, "-test.run", "^$", "-test.bench", bench, "-test.benchtime", "%dx" % n,
                          "-test.count", "1", *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd="/tmp")
    out = p.stdout.read().decode()
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("%s -test.bench %s failed" % (binary, bench))
    return ru.ru_utime + ru.ru_stime, out


def has(binary, bench):
    out = subprocess.run([binary, "-test.list", bench.split("/")[0]], capture_output=True, text=True).stdout
    return out.strip() != ""


# (row, column) -> (binary, benchmark, n1, n2)
measures = {}
for n, (n1, n2) in sizes.items():
    rows = [("Hold", "BareHeap", "N=%d" % n)]
    if n != 20:
        rows.append(("HoldUniform", "BareHeapUniform", "uniform N=%d" % n))
    for kernel, bare, row in rows:
        b = "^Benchmark%%s$/^N=%d$" % n
        measures[(row, "bare heap")] = (os.path.join(dirs[-1], "sim.test"), b % bare, n1, n2)
        for name, d in zip(names, dirs):
            binary = os.path.join(d, "sim.test")
            if has(binary, "^Benchmark%s$" % kernel):
                measures[(row, name)] = (binary, b % kernel, n1, n2)

allocs = {}
for key, (binary, bench, _, n2) in measures.items():
    _, out = run(binary, bench, n2, "-test.benchmem")
    m = re.search(r"(\d+) B/op\s+(\d+) allocs/op", out)
    allocs[key] = (int(m.group(2)), int(m.group(1))) if m else None

res = {k: [] for k in measures}
order = list(measures)
for r in range(reps):
    for key in (order if r % 2 == 0 else order[::-1]):
        binary, bench, n1, n2 = measures[key]
        res[key].append((run(binary, bench, n2)[0] - run(binary, bench, n1)[0]) / (n2 - n1) * 1e9)
    print("repetition %d done" % (r + 1), file=sys.stderr)

json.dump({"%s | %s" % k: v for k, v in res.items()}, sys.stderr, indent=1)
print()
print("| row | bare heap ns/op | " + " | ".join("%s ns/op, / bare heap, allocs/op (B/op)" % n for n in names) + " |")
print("|---|---|" + "---|" * len(names))
for row in dict.fromkeys(k[0] for k in measures):
    bare = res[(row, "bare heap")]
    cells = []
    for name in names:
        v = res.get((row, name))
        if v is None:
            cells.append("-")
            continue
        a = allocs[(row, name)]
        cells.append("%.0f, %.2fx, %s" % (statistics.median(v), statistics.median(x / y for x, y in zip(v, bare)),
                                          "%d (%d)" % a if a else "?"))
    print("| %s | %.0f | %s |" % (row, statistics.median(bare), " | ".join(cells)))
