"""Reads tandem train --tensorboard DIR with TensorBoard's own reader and holds every
scalar to the run's --metrics CSV: DIR/train's epoch_loss is train_loss, DIR/validation's
epoch_loss and epoch_accuracy (a regression's epoch_mae, epoch_rmse, epoch_r2) the
test_ columns, each at the epoch's index from 0; epoch_learning_rate the rate at the
epoch's end (--lr, or --lr-decay cosine's after the epoch's steps); with --every, DIR/train's
batch_loss at every multiple of it, and with --every 1 each epoch's batch losses average
to its train_loss.

usage: tensorboard_check.py DIR METRICS.csv --lr RATE [--cosine] [--every N]
"""
import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

failures = []


def fail(message):
    failures.append(message)
    print(f"tensorboard_check: {message}", file=sys.stderr)


def scalars(folder):
    """Every tag of the folder's event files: {tag: [(step, value), ...]}, by step."""
    if not list(folder.glob("events.out.tfevents.*")):
        fail(f"no event file in {folder}")
        return {}
    acc = EventAccumulator(str(folder), size_guidance={"scalars": 0})
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def same(got, want):
    """got, a float32, is want rounded to float32 (one ulp for the CSV's %.9g)."""
    return abs(got - want) <= 2 * float(np.spacing(np.float32(abs(want))))


def check_series(where, series, want):
    """series [(step, value)] against want {step: value}."""
    steps = [s for s, _ in series]
    if steps != sorted(want):
        fail(f"{where}: steps {steps}, expected {sorted(want)}")
        return
    for step, value in series:
        if not same(value, want[step]):
            fail(f"{where} at step {step}: {value!r}, expected {want[step]!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir", type=Path)
    parser.add_argument("metrics", type=Path)
    parser.add_argument("--lr", type=float, required=True)
    parser.add_argument("--cosine", action="store_true")
    parser.add_argument("--every", type=int, default=0)
    args = parser.parse_args()

    rows = list(csv.DictReader(line for line in args.metrics.open() if not line.startswith("#")))
    if not rows:
        fail(f"{args.metrics} holds no epoch")
    epochs = {int(r["epoch"]) - 1: r for r in rows}
    train, validation = scalars(args.dir / "train"), scalars(args.dir / "validation")
    regression = "test_r2" in rows[0] if rows else False
    train_tags = {"epoch_loss", "epoch_learning_rate"} | ({"batch_loss"} if args.every else set())
    validation_columns = ({"epoch_loss": "test_loss", "epoch_mae": "test_mae",
                           "epoch_rmse": "test_rmse", "epoch_r2": "test_r2"} if regression else
                          {"epoch_loss": "test_loss", "epoch_accuracy": "test_accuracy"})
    if set(train) != train_tags:
        fail(f"train's tags {sorted(train)}, expected {sorted(train_tags)}")
    if set(validation) != set(validation_columns):
        fail(f"validation's tags {sorted(validation)}, expected {sorted(validation_columns)}")

    check_series("train/epoch_loss", train.get("epoch_loss", []),
                 {e: float(r["train_loss"]) for e, r in epochs.items()})
    for tag, column in validation_columns.items():
        check_series(f"validation/{tag}", validation.get(tag, []),
                     {e: float(r[column]) for e, r in epochs.items()})

    batches = train.get("batch_loss", [])
    last_step = batches[-1][0] if batches else 0
    steps_per_epoch = last_step // len(rows) if rows and args.every == 1 else 0
    rates = {}
    for e in epochs:
        rate = args.lr
        if args.cosine:  # Keras' CosineDecay to 0 over the run, after the epoch's steps
            rate = args.lr * 0.5 * (1 + math.cos(math.pi * (e + 1) / len(rows)))
        rates[e] = float(np.float32(rate))
    check_series("train/epoch_learning_rate", train.get("epoch_learning_rate", []), rates)

    if args.every:
        steps = [s for s, _ in batches]
        want = list(range(args.every, last_step + 1, args.every))
        if not batches or steps != want:
            fail(f"batch_loss at steps {steps[:5]}...{steps[-3:]}, expected every {args.every}")
    for e, r in epochs.items() if steps_per_epoch else ():
        losses = [v for s, v in batches if e * steps_per_epoch < s <= (e + 1) * steps_per_epoch]
        mean = sum(losses) / len(losses)
        if not math.isclose(mean, float(r["train_loss"]), rel_tol=1e-5):
            fail(f"epoch {e}: batch_loss averages {mean}, train_loss is {r['train_loss']}")

    if failures:
        return 1
    print(f"tensorboard_check: {len(rows)} epochs, {len(batches)} batch losses: "
          f"every scalar as the metrics file has it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
