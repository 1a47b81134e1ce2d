"""Checks a timeline of tandem train --trace (Chrome's trace event JSON): a process
named for its rank, a named track per replica, and in every traced step, on every
track, the phases in their order without overlap (input wait, forward+backward, each
bucket's all-reduce, update, idle), the steps one after another; no other steps.
Every span names its clock: input wait and idle the host's; forward+backward, the
all-reduces and the update their device's where CLOCKS (one per replica, device or
host, comma-separated) says the device keeps timestamps, else the host's.
usage: check_trace.py FILE RANK REPLICAS FIRST LAST [CLOCKS]"""
import json
import sys

EPSILON = 0.0005  # microseconds: ts and dur are printed from whole nanoseconds


def fail(message):
    print(f"{sys.argv[1]}: {message}")
    sys.exit(1)


def main():
    path, rank, replicas, first, last = sys.argv[1], *map(int, sys.argv[2:6])
    clocks = sys.argv[6].split(",") if len(sys.argv) > 6 else None
    if clocks is not None and len(clocks) != replicas:
        fail(f"want {replicas} clocks, got {sys.argv[6]}")
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    pid = rank + 1
    meta = {(e["name"], e["tid"]): e["args"] for e in events if e["ph"] == "M"}
    if meta.get(("process_name", 0), {}).get("name") != f"rank {rank}":
        fail(f"want the process named rank {rank}")
    for r in range(replicas):
        if not meta.get(("thread_name", r + 1), {}).get("name", "").startswith(f"replica {r}: "):
            fail(f"want a track named for replica {r}")
    spans = [e for e in events if e["ph"] == "X"]
    if any(e["pid"] != pid or not 1 <= e["tid"] <= replicas or e["dur"] < 0 for e in spans):
        fail(f"want spans of pid {pid} on tids 1 to {replicas}, none negative")
    steps = sorted({e["args"]["step"] for e in spans})
    if steps != list(range(first, last + 1)):
        fail(f"want steps {first} to {last}, got {steps}")
    buckets = None
    for tid in range(1, replicas + 1):
        track = sorted((e for e in spans if e["tid"] == tid), key=lambda e: e["ts"])
        for a, b in zip(track, track[1:]):
            if a["ts"] + a["dur"] > b["ts"] + EPSILON or a["args"]["step"] > b["args"]["step"]:
                fail(f"track {tid}: {a['name']} of step {a['args']['step']} overlaps "
                     f"{b['name']} of step {b['args']['step']}")
        for step in steps:
            names = [e["name"] for e in track if e["args"]["step"] == step]
            count = len(names) - 4
            want = (["input wait", "forward+backward"] +
                    [f"all-reduce bucket {k}" for k in range(count)] + ["update", "idle"])
            if count < 1 or names != want or buckets not in (None, count):
                fail(f"track {tid}, step {step}: want {want} with {buckets or 'some'} "
                     f"buckets, got {names}")
            buckets = count
        for e in track:
            if e["name"] in ("input wait", "idle"):
                want = ["host"]
            else:
                want = [clocks[tid - 1]] if clocks else ["device", "host"]
            if e["args"].get("clock") not in want:
                fail(f"track {tid}, step {e['args']['step']}: {e['name']} by the clock "
                     f"{e['args'].get('clock')}, want {' or '.join(want)}")
    print(f"{path}: rank {rank}, {replicas} replicas, steps {first} to {last}, "
          f"{buckets} buckets: in order")


main()
