#!/usr/bin/env python3
"""TensorFlow's peer of `tandem bench train`: the model tandem's distribution-strategy
design comes from, training the same network on the same data from the same initial
weights as tools/peers/torch_train.py (whose data preparation, batches and initial
weights it shares), with a `tf.function` train step (Keras 3 layers, Adam) on one
process. Prints examples/s over the steps after the warm-up, and the test accuracy.

  tf_train.py digits | fashion | fashion-cnn [--epochs E] [--warmup-steps S]
                       [--threads N] [--json FILE]

Run with a Python that has TensorFlow (scripts/bench-peers.sh installs TensorFlow's
CPU build from PyPI into .peer-tools/).
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_train import (ADAM_EPSILON, LEARNING_RATE, WORKLOADS, global_batches,  # noqa: E402
                         load, tandem_kernel)

PEER_WORKLOADS = ("digits", "fashion", "fashion-cnn")


def make_model(keras, layers, inputs, classes, seed, image=None):
    """tandem's layers (units, "conv<F>k<K>", "pool<K>") and the output layer with
    tandem's initial weights, as torch_train.make_model builds them; Keras keeps a
    dense kernel [in, out] and a filter HWIO, as tandem does, and flattens NHWC."""
    h, w, c = image or (1, 1, inputs)
    mods = [keras.Input(shape=(inputs,))]
    if image:
        mods.append(keras.layers.Reshape(image))
    weights, flat = [], image is None
    specs = list(layers) + [classes]
    for l, spec in enumerate(specs):
        hidden = l < len(specs) - 1
        if isinstance(spec, str) and spec.startswith("conv"):
            filters, k = (int(v) for v in spec[4:].split("k"))
            mods.append(keras.layers.Conv2D(filters, k, padding="same", activation="relu"))
            weights.append(tandem_kernel(seed, l, k * k * c, k * k * filters, True,
                                         count=k * k * c * filters).reshape(k, k, c, filters))
            weights.append(None)
            c = filters
        elif isinstance(spec, str) and spec.startswith("pool"):
            k = int(spec[4:])
            mods.append(keras.layers.MaxPooling2D(k, padding="same"))
            h, w = -(-h // k), -(-w // k)
        else:
            if not flat:
                mods.append(keras.layers.Flatten())
                flat = True
            mods.append(keras.layers.Dense(spec, activation="relu" if hidden else None))
            weights += [tandem_kernel(seed, l, h * w * c, spec, hidden), None]
            h, w, c = 1, 1, spec
    model = keras.Sequential(mods)
    values = model.get_weights()  # kernels and biases in layer order
    model.set_weights([v if init is None else init for v, init in zip(values, weights)])
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("workload", choices=PEER_WORKLOADS)
    p.add_argument("--epochs", type=int, help="default: digits 10, the others 1")
    p.add_argument("--warmup-steps", type=int,
                   help="untimed first steps; default: digits one epoch, the others 20")
    p.add_argument("--threads", type=int, help="TensorFlow's intra-op threads; default: "
                   "the cores")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", help="the digits CSV, or the Fashion-MNIST directory")
    p.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    args = p.parse_args()
    w = WORKLOADS[args.workload]
    data = args.data or w["data"]
    epochs = args.epochs or w["epochs"]
    threads = args.threads or len(os.sched_getaffinity(0))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    import keras
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(threads)

    xtr, ytr, xte, yte = load(args.workload, data, args.seed)
    classes = int(max(ytr.max(), yte.max())) + 1
    widths = [xtr.shape[1]] + w["hidden"] + [classes]
    model = make_model(keras, w["hidden"], xtr.shape[1], classes, args.seed, w.get("image"))
    opt = keras.optimizers.Adam(learning_rate=LEARNING_RATE, epsilon=ADAM_EPSILON)
    xs, ys = tf.constant(xtr), tf.constant(ytr.astype("int32"))
    batches = global_batches(len(ytr), w["batch"], epochs, args.seed)
    steps = [tf.constant(b, dtype=tf.int32) for b in batches]
    warmup = args.warmup_steps if args.warmup_steps is not None else w["warmup_steps"]
    if warmup is None:  # one epoch
        warmup = math.ceil(len(ytr) / w["batch"])
    if not 0 <= warmup < len(steps):
        sys.exit("tf_train: %d warm-up steps leave none of %d to time" % (warmup, len(steps)))

    # tandem's loss: the batch's summed cross-entropy over the global batch, its mean.
    @tf.function(reduce_retracing=True)
    def step(indices):
        with tf.GradientTape() as tape:
            logits = model(tf.gather(xs, indices), training=True)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.gather(ys, indices), logits=logits))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for indices in steps[:warmup]:
        loss = step(indices)
    loss.numpy()  # the warm-up's work done before the clock starts
    start = time.perf_counter()
    for indices in steps[warmup:]:
        loss = step(indices)
    loss.numpy()
    seconds = time.perf_counter() - start
    timed = len(steps) - warmup
    examples = sum(len(b) for b in batches[warmup:])
    accuracy = float((model(xte, training=False).numpy().argmax(axis=1) == yte).mean())
    r = {"peer": "tensorflow", "tensorflow": tf.__version__, "keras": keras.__version__,
         "workload": args.workload, "layers": widths, "batch": w["batch"], "epochs": epochs,
         "intra_op_threads": threads, "warmup_steps": warmup, "timed_steps": timed,
         "timed_examples": examples, "seconds": seconds, "examples_per_s": examples / seconds,
         "ms_per_global_batch": 1e3 * seconds / timed, "test_examples": len(yte),
         "test_accuracy": accuracy}
    print("tensorflow %s (keras %s) %s %s batch %d: tf.function step x %d threads: "
          "%.0f examples/s, %.2f ms per global batch (%d steps timed after %d warm-up), "
          "test accuracy %.2f %% of %d"
          % (tf.__version__, keras.__version__, args.workload, "-".join(map(str, widths)),
             w["batch"], threads, r["examples_per_s"], r["ms_per_global_batch"], timed, warmup,
             100 * accuracy, len(yte)), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
