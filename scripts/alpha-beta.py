#!/usr/bin/python3
"""Fits the alpha-beta model of the ring all-reduce to `tandem bench allreduce
--multi-worker --json` runs, and predicts the ring and the hierarchical all-reduce
of a cluster from it (docs/CLUSTER.md, "A model of the all-reduce").

  alpha-beta.py RUN.json [RUN.json ...] [--min-bytes N] [--max-bytes N] [--check RUN.json]
                [--nodes 8 --gpus 8 --link-gbit 100 --link-alpha-us A --local-gbyte B]

A ring all-reduce of n bytes over p ranks takes 2 (p - 1) steps, each one message
of n / p bytes: T = 2 (p - 1) alpha + 2 (p - 1) / p n beta. Every run's rows
(process count p, size n, time) are fitted together by least squares of the relative
error on (2 (p - 1), 2 (p - 1) / p n) for sizes from --min-bytes to --max-bytes; the
fit's alpha is the cost of one message and 1 / beta the bandwidth of one link.
--check prints another run's times beside the model's.
In the prediction, "latency" is the share of the hierarchical time spent on alpha
terms and "link busy" the share the links between nodes are moving bytes.
"""
import argparse
import json


def rows_of(paths, min_bytes, max_bytes):
    rows = []
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        p = run["processes"]
        for r in run["rows"]:
            if (min_bytes <= r["size"] <= max_bytes and r["algorithm"] == "auto"
                    and r["wrong"] == 0):
                rows.append((p, r["size"], r["time_us"] * 1e-6))
    return rows


def fit(rows):
    """Least squares of t = a x + b y, x = 2 (p - 1), y = 2 (p - 1) / p n, each row
    weighted by 1 / t^2 so that small and large sizes count alike."""
    sxx = sxy = syy = sxt = syt = 0.0
    for p, n, t in rows:
        x, y = 2.0 * (p - 1) / t, 2.0 * (p - 1) / p * n / t
        t = 1.0
        sxx, sxy, syy = sxx + x * x, sxy + x * y, syy + y * y
        sxt, syt = sxt + x * t, syt + y * t
    det = sxx * syy - sxy * sxy
    return (sxt * syy - syt * sxy) / det, (sxx * syt - sxy * sxt) / det


def ring(n, p, alpha, beta):
    return 2 * (p - 1) * alpha + 2.0 * (p - 1) / p * n * beta if p > 1 else 0.0


def half_ring(n, p, alpha, beta):
    """A reduce-scatter or an all-gather alone: half of the ring's steps."""
    return ring(n, p, alpha, beta) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--min-bytes", type=int, default=0)
    ap.add_argument("--max-bytes", type=int, default=1 << 62)
    ap.add_argument("--check", action="append", default=[])
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--link-gbit", type=float, default=100.0)
    ap.add_argument("--link-alpha-us", type=float, default=None,
                    help="one message between nodes (default: the fitted alpha)")
    ap.add_argument("--local-gbyte", type=float, default=25.0,
                    help="GB/s of one GPU's link to its node's host (PCIe 4.0 x16: ~25)")
    a = ap.parse_args()

    rows = rows_of(a.runs, a.min_bytes, a.max_bytes)
    alpha, beta = fit(rows)
    print("fitted to %d rows of %s (sizes %d to %d B):" % (len(rows), ", ".join(a.runs),
                                                         min(r[1] for r in rows),
                                                         max(r[1] for r in rows)))
    print("  alpha %.1f us per message, 1/beta %.2f GB/s per link" % (alpha * 1e6, 1e-9 / beta))
    worst = max(abs(ring(n, p, alpha, beta) - t) / t for p, n, t in rows)
    print("  largest relative error of the fit over its rows: %.0f %%" % (100 * worst))
    for path in a.check:
        print("\n%s against the model:" % path)
        for p, n, t in rows_of([path], 0, 1 << 62):
            if n & (n - 1) == 0 and (n.bit_length() - 1) % 4 == 0:  # 1, 16, 256 ... bytes
                print("  %2d processes %10d B: measured %9.1f us, model %9.1f us" %
                      (p, n, t * 1e6, ring(n, p, alpha, beta) * 1e6))

    link_alpha = a.link_alpha_us * 1e-6 if a.link_alpha_us is not None else alpha
    link_beta = 8.0 / (a.link_gbit * 1e9)
    local_beta = 1.0 / (a.local_gbyte * 1e9)
    nodes, gpus = a.nodes, a.gpus
    ranks = nodes * gpus
    print("\ncluster: %d nodes x %d GPUs, %.0f Gb/s between nodes (alpha %.1f us), %.0f GB/s "
          "per GPU to its host (alpha as fitted)" % (nodes, gpus, a.link_gbit, link_alpha * 1e6,
                                                     a.local_gbyte))
    print("%10s %14s %16s %10s %10s" % ("bucket", "flat ring", "hierarchical", "latency",
                                         "link busy"))
    for mib in (1, 4, 16, 25, 64, 256):
        n = mib << 20
        flat = ring(n, ranks, link_alpha, link_beta)
        # reduce-scatter inside each node, a ring of the nodes over each 1/gpus
        # shard (the gpus shards on parallel links), then all-gather inside the node.
        hier = (half_ring(n, gpus, alpha, local_beta) + ring(n / gpus, nodes, link_alpha, link_beta)
                + half_ring(n, gpus, alpha, local_beta))
        latency = 2 * (gpus - 1) * alpha + 2 * (nodes - 1) * link_alpha
        link_busy = 2.0 * (nodes - 1) / nodes * n / gpus * link_beta
        print("%7d MiB %11.2f ms %13.2f ms %9.0f %% %9.0f %%" %
              (mib, flat * 1e3, hier * 1e3, 100 * latency / hier, 100 * link_busy / hier))


if __name__ == "__main__":
    main()
