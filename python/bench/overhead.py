"""The Python binding's overhead on a training step: ``Sequential.fit`` against
``tandem train`` on the same model, devices, batch and number of steps.

Both train on 1437 rows of the bundled digits (the CLI's training split; the Python
run takes the first 1437 rows, scaled to [0, 1]) in global batches of ``--batch``,
and both report each epoch's seconds of training steps alone (no evaluation). The
first epoch (kernel compiles, first allocations) is left out; the figure per run is
the median seconds per step over the other epochs, and the runs alternate between
the two so that a busy machine slows both alike. Prints the median and the best run
of each and the overhead of both, (python - cli) / cli: on a shared machine the best
runs are the ones least disturbed.

    python3 python/bench/overhead.py [--devices opencl:0,opencl:1] [--layers 128,128]
        [--input-shape 8x8x1] [--batch 64] [--epochs 20] [--runs 5]
"""
import argparse
import re
import statistics
import subprocess
import sys
from typing import List

import numpy as np

import tandem
from tandem import _paths

ROWS = 1437  # what tandem train keeps for training of the digits' 1797
# "epoch  2/10  23 steps  0.01 s  2197.1 steps/s ...": the rate has the digits
EPOCH_LINE = re.compile(r"^epoch\s+\d+/\d+\s+\d+ steps\s+[0-9.]+ s\s+([0-9.]+) steps/s")


def cli_seconds_per_step(args: argparse.Namespace) -> float:
    program = _paths.cli()
    if program is None:
        sys.exit("no tandem program beside libtandem: set TANDEM_CLI")
    command = [program, "train", "--devices", args.devices, "--layers", args.layers,
               "--batch", str(args.batch), "--epochs", str(args.epochs), "--no-progress"]
    if args.input_shape:
        command += ["--input-shape", args.input_shape]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    per_step = [1 / float(m.group(1)) for m in map(EPOCH_LINE.match, out.splitlines()) if m]
    if len(per_step) != args.epochs:
        sys.exit(f"unexpected output of {' '.join(command)}:\n{out}")
    return statistics.median(per_step[1:])


def python_seconds_per_step(args: argparse.Namespace, x: np.ndarray, y: np.ndarray) -> float:
    shape = tuple(int(d) for d in args.input_shape.split("x")) if args.input_shape else (64,)
    strategy = tandem.MirroredStrategy(args.devices.split(","))
    model = tandem.Sequential(args.layers, input_shape=shape, classes=10)
    model.compile(optimizer="adam", lr=1e-3)
    history = model.fit(x.reshape(-1, *shape), y, epochs=args.epochs, batch_size=args.batch,
                        strategy=strategy, verbose=0)
    steps = -(-ROWS // args.batch)
    strategy.close()
    return statistics.median(s / steps for s in history.step_seconds[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="opencl:0,opencl:1")
    parser.add_argument("--layers", default="128,128")
    parser.add_argument("--input-shape", default="", help="HxWxC for convolutions (8x8x1)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    x, y = tandem.load_digits()
    x = np.ascontiguousarray(x[:ROWS] / np.float32(16))
    y = np.ascontiguousarray(y[:ROWS])
    cli: List[float] = []
    python: List[float] = []
    for _ in range(args.runs):
        cli.append(cli_seconds_per_step(args))
        python.append(python_seconds_per_step(args, x, y))
    print(f"model {args.layers} on {args.devices}, batch {args.batch}, {args.epochs} epochs "
          f"of {-(-ROWS // args.batch)} steps, {args.runs} runs each")
    for name, runs in (("tandem train  ", cli), ("Sequential.fit", python)):
        print(f"{name}: median {statistics.median(runs) * 1e3:7.3f} ms/step, best "
              f"{min(runs) * 1e3:7.3f}  (runs: " + ", ".join(f"{v * 1e3:.3f}" for v in runs)
              + ")")
    for what, pick in (("median", statistics.median), ("best", min)):
        c, p = pick(cli), pick(python)
        print(f"overhead of the {what}: {(p - c) / c:+.1%}")


if __name__ == "__main__":
    main()
