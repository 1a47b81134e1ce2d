"""Collectives on numpy arrays: one array per replica, summed, averaged, gathered and
reduce-scattered across the devices, each result checked against numpy. Exits 0 when
every result is numpy's, bit for bit.

    python3 examples/python/mirrored_all_reduce.py [DEVICE ...]    (default: the default devices)
"""
import sys

import numpy as np

import tandem

strategy = tandem.MirroredStrategy(sys.argv[1:] or None)
replicas = strategy.num_replicas_in_sync
print(f"{replicas} replicas on", ", ".join(strategy.devices))

# Replica i's gradients, say: 4 x 6 float32 values of its own.
rng = np.random.default_rng(0)
grads = [rng.standard_normal((4, 6)).astype(np.float32) for _ in range(replicas)]

summed = strategy.all_reduce(grads, op="sum")  # every replica gets the sum
averaged = strategy.all_reduce(grads, op="mean")
gathered = strategy.all_gather(grads)  # [4 * replicas, 6]: replica 0's rows first
# Each replica one slice of the sum along the first axis (4 rows must split evenly).
scattered = strategy.reduce_scatter(grads, op="sum") if 4 % replicas == 0 else None

# tandem folds in replica order, as numpy's left-to-right sum does.
want = grads[0].copy()
for g in grads[1:]:
    want += g
ok = all(s.tobytes() == want.tobytes() for s in summed)
ok &= all(a.tobytes() == (want / np.float32(replicas)).tobytes() for a in averaged)
ok &= all(g.tobytes() == np.concatenate(grads).tobytes() for g in gathered)
if scattered is not None:
    ok &= np.concatenate(scattered).tobytes() == want.tobytes()
print("sum of row 0:", summed[0][0])
print("all_reduce, all_gather and reduce_scatter match numpy:", "yes" if ok else "NO")
strategy.close()
sys.exit(0 if ok else 1)
