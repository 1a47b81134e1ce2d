#!/usr/bin/python3
"""Reads a tandem model file with nothing but Python's standard library, as another
tool would read a safetensors file, and checks its predictions for the first rows
of a CSV against those `tandem predict` wrote.

usage: read_model.py MODEL DATA_CSV PREDICTIONS_CSV ROWS
"""
import csv
import gzip
import json
import math
import struct
import sys


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    data = blob[8 + n:]
    meta = header.pop("__metadata__")
    tensors = {}
    for name, t in header.items():
        assert t["dtype"] == "F32", name
        begin, end = t["data_offsets"]
        tensors[name] = (t["shape"], struct.unpack("<%df" % ((end - begin) // 4), data[begin:end]))
    return meta, tensors


ACTS = {"linear": lambda v: v, "relu": lambda v: max(v, 0.0), "tanh": math.tanh,
        "sigmoid": lambda v: 1.0 / (1.0 + math.exp(-v)),
        "gelu": lambda v: 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))}


def pair(text):
    a, b = text.split("x")
    return int(a), int(b)


def windows(size, k, stride, padding):
    """TensorFlow's SAME or VALID: the number of windows and the padding before them."""
    if padding == "valid":
        return (size - k) // stride + 1, 0
    out = -(-size // stride)
    return out, max((out - 1) * stride + k - size, 0) // 2


def image_layer(meta, tensors, name, kind, x, shape):
    """A conv2d or pooling layer over x, an NHWC image of one example (flat list)."""
    h, w, c = shape
    if kind == "conv2d":
        (kh, kw, _, oc), f = tensors[name + "/kernel"]
        bias = tensors[name + "/bias"][1]
    else:
        kh, kw = pair(meta[name + "/window"])
        oc = c
    sh, sw = pair(meta[name + "/strides"])
    oh, top = windows(h, kh, sh, meta[name + "/padding"])
    ow, left = windows(w, kw, sw, meta[name + "/padding"])
    y = []
    for i in range(oh):
        for j in range(ow):
            cells = [(r, s, p, q) for p in range(kh) for q in range(kw)
                     for r, s in [(i * sh - top + p, j * sw - left + q)]
                     if 0 <= r < h and 0 <= s < w]
            for o in range(oc):
                if kind == "conv2d":
                    v = sum(x[(r * w + s) * c + ch] * f[((p * kw + q) * c + ch) * oc + o]
                            for r, s, p, q in cells for ch in range(c))
                    y.append(ACTS[meta[name + "/activation"]](v + bias[o]))
                elif not cells:
                    y.append(0.0)
                elif kind == "max_pool2d":
                    y.append(max(x[(r * w + s) * c + o] for r, s, _, _ in cells))
                else:
                    y.append(sum(x[(r * w + s) * c + o] for r, s, _, _ in cells) / len(cells))
    return y, (oh, ow, oc)


def embedding(tensors, name, x, shape):
    """Each value an id (truncated), row id of the table; zeros outside it."""
    (vocab, units), table = tensors[name + "/embeddings"]
    y = []
    for v in x:
        i = math.trunc(v)
        y += table[i * units:(i + 1) * units] if 0 <= i < vocab else [0.0] * units
    h, w, c = shape
    return y, ((1, c, units) if h == w == 1 else (h, w, c * units))


def forward(meta, tensors, x):
    if "input/mean" in tensors:
        mean, std = tensors["input/mean"][1], tensors["input/std"][1]
        x = [(v - m) / (s if s > 0 else 1.0) for v, m, s in zip(x, mean, std)]
    shape = [int(v) for v in meta["input_shape"].split("x")] if "input_shape" in meta else None
    inputs = []  # each layer's input, for the shortcuts
    for layer, kind in enumerate(meta["layers"].split(",")):
        name = "%s%d" % (kind, layer)
        inputs.append(x)
        if kind == "embedding":
            x, shape = embedding(tensors, name, x, shape)
            continue
        if kind == "residual":
            x = [a + b for a, b in zip(x, inputs[layer - int(meta[name + "/skip"])])]
            continue
        if kind in ("batch_norm", "layer_norm"):
            c = shape[2] if shape else len(x)
            gamma, beta = (tensors[name + k][1] for k in ("/gamma", "/beta"))
            eps = float(meta[name + "/epsilon"])
            if kind == "batch_norm":
                mean, var = (tensors[name + k][1] for k in ("/moving_mean", "/moving_variance"))
            else:  # each position's own statistics over its channels
                mean, var = [], []
                for at in range(0, len(x), c):
                    m = sum(x[at:at + c]) / c
                    mean += [m] * c
                    var += [sum((v - m) ** 2 for v in x[at:at + c]) / c] * c
            pick = (lambda i: i % c) if kind == "batch_norm" else (lambda i: i)
            x = [(v - mean[pick(i)]) / math.sqrt(var[pick(i)] + eps) * gamma[i % c] + beta[i % c]
                 for i, v in enumerate(x)]
            continue
        if kind != "dense":
            x, shape = image_layer(meta, tensors, name, kind, x, shape)
            continue
        (rows, cols), w = tensors[name + "/kernel"]
        b = tensors[name + "/bias"][1]
        act = ACTS[meta[name + "/activation"]]
        x = [act(sum(x[i] * w[i * cols + j] for i in range(rows)) + b[j]) for j in range(cols)]
        shape = None
    top = max(x)
    exps = [math.exp(v - top) for v in x]
    return [e / sum(exps) for e in exps]


def main():
    model, data, predictions, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    meta, tensors = read_safetensors(model)
    assert meta["format"] == "tandem-model" and meta["format_version"] == "2", meta
    first = "%s0/kernel" % meta["layers"].split(",")[0]
    features = (math.prod(int(v) for v in meta["input_shape"].split("x"))
                if "input_shape" in meta else tensors[first][0][0])
    opener = gzip.open if data.endswith(".gz") else open
    with opener(data, "rt") as f:
        rows = [[float(v) for v in row[:features]] for row in csv.reader(f) if row][:count]
    with open(predictions) as f:
        written = list(csv.reader(f))[1:count + 1]
    worst = 0.0
    for x, row in zip(rows, written):
        p = forward(meta, tensors, x)
        assert int(row[0]) == p.index(max(p)), (row[0], p)
        worst = max(worst, max(abs(a - float(b)) for a, b in zip(p, row[1:])))
    assert len(rows) == count and worst < 1e-4, (len(rows), worst)
    print("read_model: %d layers, %d rows agree (worst probability difference %.2g)"
          % (len(meta["layers"].split(",")), count, worst))


if __name__ == "__main__":
    main()
