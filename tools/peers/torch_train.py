#!/usr/bin/python3
"""PyTorch's peer of `tandem bench train` and `tandem train`: the same network trained
on the same data, prepared as `tandem train` prepares it, from the same initial
weights, on one process or with DistributedDataParallel (gloo) over processes on this
machine. Prints examples/s over the training steps after the warm-up, and the test
accuracy.

  torch_train.py digits [--procs N] [--epochs E] [--warmup-steps S] [--lr-decay cosine]
                        [--json FILE]
  torch_train.py fashion ...
  torch_train.py fashion-cnn ...
  torch_train.py wide-4096 ...
  --device cuda: on the GPU (one process), to set a card's figures beside tandem's.
  --amp fp16|bf16: automatic mixed precision (torch.autocast; fp16 with a GradScaler,
  on cuda only), the peer of `tandem train --mixed-precision`.

digits: the bundled digits, 20 % held out, MLP 64-128-128-10, global batch 64.
fashion: Fashion-MNIST's train and test files, MLP 784-1024-1024-10, global batch 256.
fashion-cnn: Fashion-MNIST, `tandem train --layers conv32k3,pool2,conv64k3,pool2,128`
(SAME padding, relu; NHWC flattening as tandem's), global batch 64.
wide-4096: Fashion-MNIST, MLP 784-4096-4096-10, global batch 1024: bound by its
matrix products, `tandem train --layers 4096,4096 --batch 1024`.
diabetes: the bundled diabetes regression, 20 % held out, MLP 10-32-1 under the mean
squared error, Adam at 0.1, 60 epochs: `tandem train --data data/diabetes.csv.gz
--header --label-column progression --loss mse --layers 32 --epochs 60 --lr 0.1`;
reports the test RMSE, MAE and R^2.
digits-graph: the digits through examples/models/digits_two_branch.txt, a graph of two
branches (convolutions concatenated, a shortcut, a dense branch), 10 epochs:
`tandem train --model-file examples/models/digits_two_branch.txt`.
cancer: the bundled breast cancer data, MLP 30-32-1 under the binary cross-entropy,
20 epochs: `tandem train --data data/breast_cancer.csv.gz --skip-rows 1 --loss
binary_crossentropy --layers 32 --epochs 20`; reports the test accuracy.
Adam at 0.001 (unless said); --lr-decay cosine lowers the rate of step k of T to
0.001 * (1 + cos(pi k / T)) / 2, as `tandem train --lr-decay cosine` does.
Each process runs torch and OpenBLAS on the cores over the processes (--threads).
"""
import argparse
import gzip
import json
import math
import os
import socket
import struct
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = {  # warmup_steps None: one epoch
    "digits": {"data": os.path.join(HERE, "..", "..", "data", "digits.csv.gz"),
               "hidden": [128, 128], "batch": 64, "epochs": 10, "warmup_steps": None},
    "fashion": {"data": "/usr/share/datasets/fashion-mnist",
                "hidden": [1024, 1024], "batch": 256, "epochs": 1, "warmup_steps": 20},
    "fashion-cnn": {"data": "/usr/share/datasets/fashion-mnist",
                    "hidden": ["conv32k3", "pool2", "conv64k3", "pool2", 128], "batch": 64,
                    "epochs": 1, "warmup_steps": 20, "image": (28, 28, 1)},
    "wide-4096": {"data": "/usr/share/datasets/fashion-mnist",
                  "hidden": [4096, 4096], "batch": 1024, "epochs": 1, "warmup_steps": 5},
    "digits-graph": {"data": os.path.join(HERE, "..", "..", "data", "digits.csv.gz"),
                     "graph": os.path.join(HERE, "..", "..", "examples", "models",
                                           "digits_two_branch.txt"),
                     "hidden": [], "batch": 64, "epochs": 10, "warmup_steps": None,
                     "image": (8, 8, 1)},
    "diabetes": {"data": os.path.join(HERE, "..", "..", "data", "diabetes.csv.gz"),
                 "hidden": [32], "batch": 64, "epochs": 60, "warmup_steps": None,
                 "task": "regression", "lr": 0.1, "skip": 1},
    "cancer": {"data": os.path.join(HERE, "..", "..", "data", "breast_cancer.csv.gz"),
               "hidden": [32], "batch": 64, "epochs": 20, "warmup_steps": None,
               "task": "binary", "skip": 1},
}
AMP_DTYPES = {"fp16": "float16", "bf16": "bfloat16"}
TEST_FRACTION = 0.2  # tandem train's default hold-out, for data without a test split
LEARNING_RATE = 0.001
ADAM_EPSILON = 1e-7  # tandem's (TensorFlow's) default; PyTorch's is 1e-8

# ---- tandem's generators (include/tandem/dataset.h, core/model) --------------------

U64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def splitmix64_mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & U64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & U64
    return z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & U64


def tandem_shuffle(items, seed, epoch):
    """items in epoch `epoch`'s order for seed: xoshiro256** seeded through
    splitmix64, Fisher-Yates with rejection, exactly as tandem shuffles."""
    state = seed ^ splitmix64_mix(epoch)
    s = []
    for _ in range(4):
        state = (state + GOLDEN) & U64
        s.append(splitmix64_mix(state))
    out = list(items)
    for i in range(len(out), 1, -1):
        threshold = (1 << 64) % i
        while True:
            x = (rotl((s[1] * 5) & U64, 7) * 9) & U64
            t = (s[1] << 17) & U64
            s[2] ^= s[0]
            s[3] ^= s[1]
            s[1] ^= s[2]
            s[0] ^= s[3]
            s[2] ^= t
            s[3] = rotl(s[3], 45)
            if x >= threshold:
                break
        j = x % i
        out[i - 1], out[j] = out[j], out[i - 1]
    return out


def tandem_kernel(seed, layer, fan_in, fan_out, he, count=None):
    """Layer `layer`'s initial kernel, [fan_in, fan_out] row-major as tandem draws it:
    Glorot uniform, He uniform for relu, from splitmix64 keyed by seed and layer.
    A filter's fans are its window times its channels; count then gives its size, and
    the values come flat, in HWIO order."""
    start = splitmix64_mix(seed ^ splitmix64_mix(layer + 1))
    flat = count is not None
    count = count or fan_in * fan_out
    steps = np.arange(1, count + 1, dtype=np.uint64)
    z = np.uint64(start) + steps * np.uint64(GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    limit = math.sqrt(6.0 / (fan_in if he else fan_in + fan_out))
    values = ((2.0 * u - 1.0) * limit).astype(np.float32)
    return values if flat else values.reshape(fan_in, fan_out)

# ---- data, prepared as tools/tandem/train/train_data.c prepares it ----------------------


def read_idx(path):
    types = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
    with gzip.open(path, "rb") as f:
        raw = f.read()
    kind, ndim = raw[2], raw[3]
    dims = struct.unpack(">%dI" % ndim, raw[4:4 + 4 * ndim])
    data = np.frombuffer(raw, dtype=types[kind], offset=4 + 4 * ndim)
    return data.reshape(dims[0], -1) if ndim > 1 else data


def load(workload, path, seed):
    """(train features, train labels, test features, test labels), standardised with
    the training split's statistics. Class labels are int64, a task's targets float32
    [rows, 1]."""
    w = WORKLOADS[workload]
    if path.endswith(".csv.gz"):
        table = np.loadtxt(gzip.open(path, "rt"), delimiter=",", ndmin=2,
                           skiprows=w.get("skip", 0))
        x = table[:, :-1].astype(np.float32)
        y = (table[:, -1:].astype(np.float32) if "task" in w
             else table[:, -1].astype(np.int64))
        rows = tandem_shuffle(range(len(y)), seed, 0)  # shuffle_once, then the split
        k = math.floor((1.0 - TEST_FRACTION) * len(y))
        train, test = rows[:k], rows[k:]
        xtr, ytr, xte, yte = x[train], y[train], x[test], y[test]
    else:
        xtr = read_idx(os.path.join(path, "train-images-idx3-ubyte.gz")).astype(np.float32)
        ytr = read_idx(os.path.join(path, "train-labels-idx1-ubyte.gz")).astype(np.int64)
        xte = read_idx(os.path.join(path, "t10k-images-idx3-ubyte.gz")).astype(np.float32)
        yte = read_idx(os.path.join(path, "t10k-labels-idx1-ubyte.gz")).astype(np.int64)
    # Population statistics in double, used as float; a constant feature is centred.
    mean = xtr.mean(axis=0, dtype=np.float64).astype(np.float32)
    std = xtr.std(axis=0, dtype=np.float64).astype(np.float32)
    std[std == 0] = 1
    return (xtr - mean) / std, ytr, (xte - mean) / std, yte


def global_batches(train_count, batch, epochs, seed):
    """Each step's example indices: every epoch reshuffled as tandem's iterator does,
    batches consecutive, the last one of an epoch partial."""
    steps = []
    for epoch in range(epochs):
        order = tandem_shuffle(range(train_count), seed, epoch)
        steps += [order[i:i + batch] for i in range(0, train_count, batch)]
    return steps


def replica_slice(count, rank, procs):
    """tandem's split of a global batch: the first count % N replicas get one more."""
    start = rank * (count // procs) + min(rank, count % procs)
    return start, start + count // procs + (rank < count % procs)

# ---- training ---------------------------------------------------------------------


def tandem_conv(seed, l, c, filters, k, he):
    """Layer l's SAME convolution of c channels into filters, k x k, with tandem's
    initial filter (HWIO there, OIHW here) and a zero bias."""
    import torch
    conv = torch.nn.Conv2d(c, filters, k, padding="same")
    kernel = tandem_kernel(seed, l, k * k * c, k * k * filters, he,
                           count=k * k * c * filters).reshape(k, k, c, filters)
    with torch.no_grad():
        conv.weight.copy_(torch.from_numpy(kernel.transpose(3, 2, 0, 1).copy()))
        conv.bias.zero_()
    return conv


def tandem_linear(seed, l, fan_in, units, he):
    """Layer l's dense layer with tandem's initial kernel and a zero bias."""
    import torch
    linear = torch.nn.Linear(fan_in, units)
    kernel = tandem_kernel(seed, l, fan_in, units, he)
    with torch.no_grad():
        linear.weight.copy_(torch.from_numpy(kernel.T.copy()))
        linear.bias.zero_()
    return linear


def make_model(layers, inputs, classes, seed, image=None):
    """tandem's layers (units, "conv<F>k<K>", "pool<K>") and then the output layer,
    with tandem's initial weights: relu after every hidden dense and conv layer, SAME
    padding, stride 1 for a convolution and the window for pooling, and a dense layer
    after an image reading it in NHWC order, as tandem flattens."""
    import torch

    class Image(torch.nn.Module):  # [rows, h * w * c] in NHWC -> [rows, c, h, w]
        def forward(self, x):
            return x.reshape(-1, *image).permute(0, 3, 1, 2)

    class Flatten(torch.nn.Module):  # [rows, c, h, w] -> [rows, h * w * c] in NHWC
        def forward(self, x):
            return x.permute(0, 2, 3, 1).flatten(1)

    h, w, c = image or (1, 1, inputs)
    mods, flat = ([Image()] if image else []), image is None
    specs = list(layers) + [classes]
    for l, spec in enumerate(specs):
        hidden = l < len(specs) - 1
        if isinstance(spec, str) and spec.startswith("conv"):
            filters, k = (int(v) for v in spec[4:].split("k"))
            mods += [tandem_conv(seed, l, c, filters, k, True), torch.nn.ReLU()]
            c = filters
        elif isinstance(spec, str) and spec.startswith("pool"):
            k = int(spec[4:])
            mods.append(torch.nn.MaxPool2d(k, ceil_mode=True))  # SAME: the last window padded
            h, w = -(-h // k), -(-w // k)
        else:
            if not flat:
                mods.append(Flatten())
                flat = True
            linear = tandem_linear(seed, l, h * w * c, spec, hidden)
            mods += [linear, torch.nn.ReLU()] if hidden else [linear]
            h, w, c = 1, 1, spec
    return torch.nn.Sequential(*mods)


def make_graph(path, inputs, classes, seed, image):
    """The graph text at path (docs/MODELS.md: `NAME = ITEM(INPUTS) [ACTIVATION]`, of the
    items conv<F>k<K>, dense<N> or <N>, gap, add, concatenate, multiply) with tandem's
    initial weights: layer l's kernel drawn as tandem draws layer l's, He uniform after
    relu, SAME convolutions, NHWC flattening; the last line is the output layer."""
    import re
    import torch

    acts = {"relu": torch.relu, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
            "gelu": torch.nn.functional.gelu, "linear": lambda v: v}
    lines = []
    with open(path) as f:
        for text in f:
            text = text.split("#")[0].strip()
            if text:
                m = re.fullmatch(r"(\w+) = (\w+)\(([\w, ]+)\)\s*(\w*)", text)
                if not m:
                    raise SystemExit("torch_train: cannot read the line %r" % text)
                name, item, ins, act = m.groups()
                lines.append((name, item, [s.strip() for s in ins.split(",")], act or "linear"))

    class Graph(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.shapes = {"input": tuple(image) if image else (1, 1, inputs)}
            self.mods = torch.nn.ModuleDict()
            for l, (name, item, ins, act) in enumerate(lines):
                h, w, c = self.shapes[ins[0]]
                he = act in ("relu", "gelu")
                if item.startswith("conv"):
                    filters, k = (int(v) for v in item[4:].split("k"))
                    self.mods[name] = tandem_conv(seed, l, c, filters, k, he)
                    self.shapes[name] = (h, w, filters)
                elif re.fullmatch(r"(dense)?\d+", item):
                    units = int(item.replace("dense", ""))
                    self.mods[name] = tandem_linear(seed, l, h * w * c, units, he)
                    self.shapes[name] = (1, 1, units)
                elif item == "gap":
                    self.shapes[name] = (1, 1, c)
                elif item in ("add", "multiply"):
                    self.shapes[name] = (h, w, c)
                elif item in ("concatenate", "concat"):
                    self.shapes[name] = (h, w, sum(self.shapes[i][2] for i in ins))
                else:
                    raise SystemExit("torch_train: no item %r in this peer" % item)

        def forward(self, x):  # every value as an image [rows, c, h, w]
            h, w, c = self.shapes["input"]
            values = {"input": x.reshape(-1, h, w, c).permute(0, 3, 1, 2)}
            for name, item, ins, act in lines:
                v = [values[i] for i in ins]
                if item.startswith("conv"):
                    y = self.mods[name](v[0])
                elif name in self.mods:  # dense: NHWC flattening, as tandem's
                    y = self.mods[name](v[0].permute(0, 2, 3, 1).flatten(1))[:, :, None, None]
                elif item == "gap":
                    y = v[0].mean((2, 3), keepdim=True)
                elif item == "add":
                    y = v[0] + v[1]
                elif item == "multiply":
                    y = v[0] * v[1]
                else:
                    y = torch.cat(v, 1)
                values[name] = acts[act](y)
            return values[lines[-1][0]].flatten(1)

    model = Graph()
    if model.shapes[lines[-1][0]] != (1, 1, classes):
        raise SystemExit("torch_train: the graph's last layer is not %d outputs" % classes)
    return model


def train(rank, args, threads, port):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    distributed = args.procs > 1
    if distributed:
        import torch.distributed as dist
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                                rank=rank, world_size=args.procs)
    device = torch.device(args.device)
    xtr, ytr, xte, yte = (torch.from_numpy(a).to(device)
                          for a in load(args.workload, args.data, args.seed))
    task = WORKLOADS[args.workload].get("task")
    classes = ytr.shape[1] if task else int(max(ytr.max(), yte.max())) + 1
    widths = [xtr.shape[1]] + args.hidden + [classes]
    graph = WORKLOADS[args.workload].get("graph")
    model = (make_graph(graph, xtr.shape[1], classes, args.seed, args.image) if graph
             else make_model(args.hidden, xtr.shape[1], classes, args.seed, args.image))
    model = model.to(device)
    net = torch.nn.parallel.DistributedDataParallel(model) if distributed else model
    lr = WORKLOADS[args.workload].get("lr", LEARNING_RATE)
    opt = torch.optim.Adam(model.parameters(), lr=lr, eps=ADAM_EPSILON)
    # fp16 gradients underflow without a scaler; bf16 has float's range and needs none.
    amp_dtype = getattr(torch, AMP_DTYPES[args.amp]) if args.amp else None
    scaler = None
    if args.amp == "fp16":  # torch.amp's since 2.3, torch.cuda.amp's before
        scaler = (torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler")
                  else torch.cuda.amp.GradScaler())
    batches = global_batches(len(ytr), args.batch, args.epochs, args.seed)
    steps = [torch.tensor(b, device=device) for b in batches]

    def finish():  # a GPU's queue drained, so that the clock counts its work
        if device.type == "cuda":
            torch.cuda.synchronize()
    warmup = args.warmup_steps
    if warmup is None:  # one epoch
        warmup = math.ceil(len(ytr) / args.batch)
    if not 0 <= warmup < len(steps):
        sys.exit("torch_train: %d warm-up steps leave none of %d to time" % (warmup, len(steps)))

    def rate(k):  # tandem's TDM_LR_WARMUP_COSINE without warm-up, down to 0
        if args.lr_decay == "none":
            return lr
        return lr * 0.5 * (1.0 + math.cos(math.pi * k / len(steps)))

    def loss_sum(outputs, labels):
        """The slice's summed per-example losses; a per-output loss is its outputs'
        mean per example, as tandem's (and Keras') are."""
        if task == "regression":
            return F.mse_loss(outputs, labels, reduction="sum") / outputs.shape[1]
        if task == "binary":
            return F.binary_cross_entropy_with_logits(outputs, labels,
                                                      reduction="sum") / outputs.shape[1]
        return F.cross_entropy(outputs, labels, reduction="sum")

    done = [0]

    def step(indices):
        for group in opt.param_groups:
            group["lr"] = rate(done[0])
        done[0] += 1
        lo, hi = replica_slice(len(indices), rank, args.procs)
        mine = indices[lo:hi]
        with torch.autocast(device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
            logits = net(xtr.index_select(0, mine))
            # tandem's loss: the sum over the replica's slice divided by the global batch.
            # DDP averages the replicas' gradients, so scaling by procs makes that a sum.
            loss = loss_sum(logits, ytr.index_select(0, mine))
        loss = loss * (args.procs / len(indices))
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        opt.zero_grad(set_to_none=True)

    for indices in steps[:warmup]:
        step(indices)
    if distributed:
        dist.barrier()
    finish()
    start = time.perf_counter()
    for indices in steps[warmup:]:
        step(indices)
    finish()
    seconds = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
    if distributed:
        dist.all_reduce(seconds, op=dist.ReduceOp.MAX)  # the slowest process's time
    if rank == 0:
        with torch.no_grad():
            scores = score(task, model(xte).double(), yte)
        report(args, torch.__version__ + (" on " + torch.cuda.get_device_name(device)
                                          if device.type == "cuda" else ""), threads, widths, warmup, len(steps) - warmup,
               sum(len(b) for b in steps[warmup:]), seconds.item(), scores, len(yte))
    if distributed:
        dist.destroy_process_group()


def score(task, outputs, labels):
    """The test metrics tandem reports for the task: accuracy for classes, binary
    accuracy for sigmoid outputs, RMSE, MAE and R^2 (each output's, then their mean)
    for a regression."""
    if task == "binary":
        return {"accuracy": ((outputs > 0) == (labels > 0.5)).double().mean().item()}
    if task is None:
        return {"accuracy": (outputs.argmax(dim=1) == labels).double().mean().item()}
    t = labels.double()
    d = outputs - t
    total = ((t - t.mean(dim=0)) ** 2).sum(dim=0)
    return {"rmse": d.pow(2).mean().sqrt().item(), "mae": d.abs().mean().item(),
            "r2": (1.0 - d.pow(2).sum(dim=0) / total).mean().item()}


def blas_libraries():
    """The BLAS and LAPACK libraries this process loaded, resolved through their links
    (Debian's alternatives pick OpenBLAS, BLIS or the reference BLAS): a peer figure
    means little without the library that computed it."""
    found = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            name = os.path.basename(path)
            if any(k in name for k in ("blas", "lapack", "blis", "mkl")) and path not in found:
                found.append(path)
    return [os.path.realpath(p) for p in found] or ["none found in /proc/self/maps"]


def openblas_kernels():
    """The kernels the loaded OpenBLAS chose for this CPU (openblas_get_corename), or
    None: a DYNAMIC_ARCH build takes a CPU newer than itself for an old one, and then
    multiplies at a fraction of the CPU's speed (OPENBLAS_CORETYPE overrides it)."""
    import ctypes
    for path in blas_libraries():
        if "openblas" in os.path.basename(path):
            try:
                corename = ctypes.CDLL(path).openblas_get_corename
            except (OSError, AttributeError):
                continue
            corename.restype = ctypes.c_char_p
            return corename().decode()
    return None


def report(args, version, threads, widths, warmup, timed, examples, seconds, scores, tests):
    r = {"peer": "pytorch", "torch": version, "workload": args.workload,
         "layers": widths, "batch": args.batch, "epochs": args.epochs,
         "lr_decay": args.lr_decay, "amp": args.amp or "none",
         "processes": args.procs, "threads_per_process": threads,
         "backend": "gloo" if args.procs > 1 else "none",
         "warmup_steps": warmup, "timed_steps": timed, "timed_examples": examples,
         "seconds": seconds, "examples_per_s": examples / seconds,
         "ms_per_global_batch": 1e3 * seconds / timed,
         "test_examples": tests, "blas": blas_libraries(),
         "openblas_kernels": openblas_kernels()}
    r.update({"test_" + k: v for k, v in scores.items()})
    mode = "DDP gloo x %d processes" % args.procs if args.procs > 1 else "1 process"
    shown = ("test accuracy %.2f %%" % (100 * scores["accuracy"]) if "accuracy" in scores
             else "test RMSE %.4g, MAE %.4g, R^2 %.4f" % (scores["rmse"], scores["mae"],
                                                          scores["r2"]))
    print("torch %s %s %s batch %d%s: %s x %d threads: %.0f examples/s, %.2f ms per global batch "
          "(%d steps timed after %d warm-up), %s of %d"
          % (version, args.workload, "-".join(map(str, widths)), args.batch,
             (", cosine lr decay" if args.lr_decay == "cosine" else "")
             + (", AMP " + args.amp if args.amp else ""), mode, threads,
             r["examples_per_s"], r["ms_per_global_batch"], timed, warmup, shown, tests),
          flush=True)
    print("  BLAS loaded: %s%s" % (", ".join(r["blas"]),
                                   "; OpenBLAS's %s kernels" % r["openblas_kernels"]
                                   if r["openblas_kernels"] else ""), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)
            f.write("\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("workload", choices=sorted(WORKLOADS))
    p.add_argument("--procs", type=int, default=1,
                   help="1: one process; N > 1: DistributedDataParallel (gloo) over N")
    p.add_argument("--epochs", type=int, help="default: digits 10, the others 1")
    p.add_argument("--warmup-steps", type=int,
                   help="untimed first steps; default: digits one epoch, fashion and "
                   "fashion-cnn 20, wide-4096 5")
    p.add_argument("--threads", type=int, help="torch and OpenBLAS threads per process; "
                   "default: the cores over the processes")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lr-decay", choices=["none", "cosine"], default="none",
                   help="cosine: the rate falls from 0.001 to 0 over the run's steps")
    p.add_argument("--device", default="cpu", help="cpu, or cuda (one process) for a GPU")
    p.add_argument("--amp", choices=sorted(AMP_DTYPES),
                   help="automatic mixed precision: fp16 (with a GradScaler; cuda only) or "
                   "bf16; default: off, float32")
    p.add_argument("--data", help="the digits CSV, or the Fashion-MNIST directory")
    p.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    args = p.parse_args()
    w = WORKLOADS[args.workload]
    args.data = args.data or w["data"]
    args.epochs = args.epochs or w["epochs"]
    if args.warmup_steps is None:
        args.warmup_steps = w["warmup_steps"]
    args.hidden, args.batch, args.image = w["hidden"], w["batch"], w.get("image")
    cores = len(os.sched_getaffinity(0))
    threads = args.threads or max(1, cores // args.procs)
    # OpenBLAS reads its thread count when it loads: set it before torch does.
    os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    if args.amp == "fp16" and not args.device.startswith("cuda"):
        sys.exit("torch_train: --amp fp16 needs --device cuda (CPU autocast takes bf16; "
                 "its GradScaler is CUDA's)")
    if args.device != "cpu" and args.procs != 1:
        sys.exit("torch_train: --device %s trains in one process" % args.device)
    if args.procs == 1:
        train(0, args, threads, 0)
        return
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    import torch.multiprocessing
    torch.multiprocessing.spawn(train, args=(args, threads, free_port()), nprocs=args.procs)


if __name__ == "__main__":
    main()
