"""An exported ONNX model against tandem's own predictions: onnx's checker accepts
it, and onnxruntime computes on the same rows what `tandem predict` printed (or what
the Python package's predict returned), within a mixed tolerance.

usage: onnx_check.py MODEL.onnx FEATURES.csv EXPECTED.csv [--rtol R] [--atol A]
  FEATURES.csv  the rows, features only, every model input's columns side by side
  EXPECTED.csv  tandem predict --output: a header (class,p0,... / p0,... / y0,...,
                or for outputs of several positions class0,class1,...,p0_0,p0_1,...)
                then a row per example; the "class" columns are checked against the
                highest probability of each position
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
    class_cols = [i for i, name in enumerate(header) if name.startswith("class")]
    value_cols = [i for i in range(len(header)) if i not in class_cols]
    values = np.array([[float(r[i]) for i in value_cols] for r in rows], dtype=np.float64)
    classes = [[r[i] for i in class_cols] for r in rows] if class_cols else None
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
        best = np.argmax(got.reshape(len(got), len(classes[0]), -1), axis=2)
        wrong = [r for r, row in enumerate(classes)
                 if any(c.isdigit() and int(c) != b for c, b in zip(row, best[r]))]
        if wrong:
            sys.exit(f"rows {wrong[:5]}: onnxruntime's highest class is not tandem's")


if __name__ == "__main__":
    main()
