"""An exported ONNX model against tandem's own predictions: onnx's checker accepts
it, and onnxruntime computes on the same rows what `tandem predict` printed (or what
the Python package's predict returned), within a mixed tolerance.

usage: onnx_check.py MODEL.onnx FEATURES.csv EXPECTED.csv [--rtol R] [--atol A]
                    [--positions T]
  FEATURES.csv  the rows, features only, every model input's columns side by side
  EXPECTED.csv  tandem predict --output: a header (class,p0,... / p0,... / y0,...)
                then a row per example; a "class" column is checked against the
                highest probability
  --positions   a model of T positions (a language model): tandem predict prints the
                softmax over each whole row, the model's probabilities are each
                position's softmax, so tandem's are divided by their sum within each
                position, and the class (the whole row's best) is not checked
Prints the worst relative difference; exits 1 on a mismatch."""
import argparse
import sys

import numpy as np
import onnx
import onnxruntime


def expected_values(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    value_cols = [i for i, name in enumerate(header) if name != "class"]
    values = np.array([[float(r[i]) for i in value_cols] for r in rows], dtype=np.float64)
    classes = [r[0] for r in rows] if header[0] == "class" else None
    # probabilities when the model's outputs are (p0, ...), else its values (y0, ...)
    output = "probabilities" if header[value_cols[0]].startswith("p") else "output"
    return values, classes, output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("features")
    parser.add_argument("expected")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-6)
    parser.add_argument("--positions", type=int, default=1)
    args = parser.parse_args()

    model = onnx.load(args.model)
    onnx.checker.check_model(model, full_check=True)
    session = onnxruntime.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    features = np.loadtxt(args.features, delimiter=",", dtype=np.float32, ndmin=2)
    feeds, first = {}, 0
    for given in session.get_inputs():
        width = given.shape[1]
        feeds[given.name] = features[:, first:first + width]
        first += width
    if first != features.shape[1]:
        sys.exit(f"the model's inputs take {first} columns; {args.features} has "
                 f"{features.shape[1]}")
    want, classes, output = expected_values(args.expected)
    if args.positions > 1 and output == "probabilities":
        blocks = want.reshape(len(want), args.positions, -1)
        want = (blocks / blocks.sum(axis=2, keepdims=True)).reshape(want.shape)
        classes = None
    got = session.run([output], feeds)[0].astype(np.float64)
    if got.shape != want.shape:
        sys.exit(f"{output}: shape {got.shape}, tandem's {want.shape}")
    diff = np.abs(got - want)
    relative = diff / np.maximum(np.abs(want), np.finfo(np.float32).tiny)
    worst = np.unravel_index(np.argmax(relative), relative.shape)
    bad = diff > args.rtol * np.abs(want) + args.atol
    print(f"{args.model}: {output} {got.shape[0]}x{got.shape[1]}, worst relative difference "
          f"{relative[worst]:.3g} (row {worst[0]}, column {worst[1]}: onnxruntime "
          f"{got[worst]:.9g}, tandem {want[worst]:.9g}); largest absolute {diff.max():.3g}")
    if bad.any():
        row, col = np.argwhere(bad)[0]
        sys.exit(f"{int(bad.sum())} values differ past rtol {args.rtol} + atol {args.atol}: "
                 f"first at row {row}, column {col}: {got[row, col]:.9g} against "
                 f"{want[row, col]:.9g}")
    if classes is not None:
        best = np.argmax(got, axis=1)
        wrong = [r for r, c in enumerate(classes) if c.isdigit() and int(c) != best[r]]
        if wrong:
            sys.exit(f"rows {wrong[:5]}: onnxruntime's highest class is not tandem's")


if __name__ == "__main__":
    main()
