"""The library's baseline world in SimPy 2 (Debian's python3-simpy, 2.3.1).

The yardstick for redlocksim's speed (docs/results/benchmarks.md): the
same world as scenarios/library/baseline.toml, so that the time of one run
here and one run there compare like with like. Five Redis nodes, each
serving one command at a time for 100 us; three Redlock clients that SET NX
PX on all five (50 ms request timeout, quorum 3, validity
TTL - elapsed - drift), release on every node after a failed try (up to 3
retries, 200 ms +- 100 ms apart) and after a critical section (read the
resource, 100 ms, write it), then think 100 ms; one-way latency uniform in
0.5..1.5 ms, FIFO per link; 60 s. Clock drift (100 ppm) is left out: it
moves no message.

A message is a SimPy process that holds for its latency, a node a
process serving a Store, a timeout a process cancelled when the replies
come first: the way SimPy models are written.

usage: python3 baseline.py SEED [RUNS]
prints one JSON object: messages per run (the count TestSimPy... checks
against redlocksim's), events per run (holds and gets that resumed a
process), and the CPU seconds per run.
"""

import json
import random
import sys
import time

from SimPy.Simulation import (Process, SimEvent, Store, activate, get, hold,
                              initialize, now, put, simulate, waitevent)

MS = 1e-3
TTL = 10.0
REQUEST_TIMEOUT = 50 * MS
DRIFT = TTL * 0.01 + 2 * MS
RETRIES = 3
RETRY_DELAY, RETRY_JITTER = 200 * MS, 100 * MS
CRITICAL_SECTION, THINK = 100 * MS, 100 * MS
RESOURCE_TIMEOUT = 1.0
SERVICE = 100e-6
LATENCY = (0.5 * MS, 1.5 * MS)
NODES, CLIENTS, DURATION = 5, 3, 60.0


class World:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.sent = 0
        self.events = 0
        self.last = {}  # (from, to) -> latest delivery time: FIFO links

    def send(self, src, dst, msg):
        self.sent += 1
        at = max(now() + self.rng.uniform(*LATENCY), self.last.get((src, dst), 0.0))
        self.last[(src, dst)] = at
        m = Message(self)
        activate(m, m.fly(at - now(), src, dst, msg))


class Message(Process):
    def __init__(self, world):
        Process.__init__(self)
        self.world = world

    def fly(self, delay, src, dst, msg):
        yield hold, self, delay
        self.world.events += 1
        if isinstance(dst, Node):
            yield put, self, dst.inbox, [(src, msg)]
        else:
            dst.receive(src, msg)


class Node(Process):
    def __init__(self, world):
        Process.__init__(self)
        self.world = world
        self.inbox = Store(capacity=1 << 30)
        self.value, self.expires = None, 0.0

    def serve(self):
        while True:
            yield get, self, self.inbox, 1
            src, (kind, value, tag) = self.got[0]
            yield hold, self, SERVICE
            self.world.events += 1
            if kind == "set":
                ok = self.value is None or now() >= self.expires
                if ok:
                    self.value, self.expires = value, now() + TTL
            else:  # compare-and-delete
                ok = self.value == value and now() < self.expires
                if ok:
                    self.value = None
            self.world.send(self, src, ("reply", ok, tag))


class Resource:
    def __init__(self, world):
        self.world = world

    def receive(self, src, msg):
        self.world.send(self, src, ("reply", True, msg[2]))


class Timeout(Process):
    def wait(self, delay, client, tag):
        yield hold, self, delay
        client.world.events += 1
        client.timed_out(tag)


class Client(Process):
    def __init__(self, world, nodes, resource):
        Process.__init__(self)
        self.world, self.nodes, self.resource = world, nodes, resource
        self.tag = 0

    # The replies of the round in flight (tag) count; late ones do not.
    def receive(self, src, msg):
        _, ok, tag = msg
        if tag != self.tag:
            return
        self.replies += 1
        self.oks += ok
        if self.replies == self.expect:
            self.cancel(self.timer)
            self.done.signal()

    def timed_out(self, tag):
        if tag == self.tag:
            self.done.signal()

    def round(self, dsts, kind, value, timeout):
        self.tag += 1
        self.replies, self.oks, self.expect = 0, 0, len(dsts)
        self.done = SimEvent()
        for d in dsts:
            self.world.send(self, d, (kind, value, self.tag))
        self.timer = Timeout()
        activate(self.timer, self.timer.wait(timeout, self, self.tag))

    def unlock(self, value):
        self.tag += 1  # the replies to a release are not waited for
        for n in self.nodes:
            self.world.send(self, n, ("del", value, self.tag))

    def run(self):
        rng = self.world.rng
        while True:
            for try_ in range(RETRIES + 1):
                value = rng.getrandbits(64)
                start = now()
                self.round(self.nodes, "set", value, REQUEST_TIMEOUT)
                yield waitevent, self, self.done
                self.world.events += 1
                if self.oks >= NODES // 2 + 1 and TTL - (now() - start) - DRIFT > 0:
                    break
                self.unlock(value)
                if try_ < RETRIES:
                    yield hold, self, rng.uniform(RETRY_DELAY - RETRY_JITTER, RETRY_DELAY + RETRY_JITTER)
                    self.world.events += 1
            else:
                yield hold, self, THINK
                self.world.events += 1
                continue
            self.round([self.resource], "read", value, RESOURCE_TIMEOUT)
            yield waitevent, self, self.done
            yield hold, self, CRITICAL_SECTION
            self.world.events += 1
            self.round([self.resource], "write", value, RESOURCE_TIMEOUT)
            yield waitevent, self, self.done
            self.unlock(value)
            yield hold, self, THINK
            self.world.events += 1


def run(seed):
    initialize()
    world = World(seed)
    nodes = [Node(world) for _ in range(NODES)]
    for n in nodes:
        activate(n, n.serve())
    resource = Resource(world)
    for _ in range(CLIENTS):
        c = Client(world, nodes, resource)
        activate(c, c.run())
    simulate(until=DURATION)
    return world


def main():
    seed = int(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    messages = events = 0
    start = time.process_time()
    for i in range(runs):
        w = run(seed + i)
        messages += w.sent
        events += w.events
    cpu = time.process_time() - start
    print(json.dumps({"runs": runs, "messages_per_run": messages / runs,
                      "events_per_run": events / runs, "cpu_s_per_run": cpu / runs}))


if __name__ == "__main__":
    main()
