#!/usr/bin/python3
"""PyTorch's peer of `tandem bench train -m gpt-tiny` and `tandem train --text -`: the
same decoder-only transformer trained on the same windows of the bundled text. Prints
tokens/s over the training steps after the warm-up and the validation bits per byte.

  torch_gpt.py [--epochs E] [--steps N] [--warmup-steps S] [--threads T] [--json FILE]
               [--device cuda --amp fp16|bf16]

gpt-tiny (docs/design/014-transformers.md): each byte's 128-wide embedding plus a
learned position's, four pre-norm blocks (layer norm, causal self-attention of 4 heads
with Q, K and V from one product and a projection, residual, layer norm, a GELU MLP of
512, residual), a final layer norm and a linear output of 256 per position, layer norm
epsilon 1e-3 and Adam at 0.001 with epsilon 1e-7 as tandem's (Keras') defaults. The
text is cut as `tandem train --text - --context 128` cuts it: windows of 129 bytes
every 128, the training part ending at the largest multiple of 128 not past nine
tenths of the bytes, the windows after it held out; batch 32, shuffled each epoch.
The weights start from PyTorch's own initialisation, so the bits per byte compare
as two runs of one recipe, not bit for bit.
"""
import argparse
import gzip
import json
import math
import os
import time

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
TEXT = os.path.join(HERE, "..", "..", "data", "shakespeare.txt.gz")
CONTEXT, WIDTH, HEADS, BLOCKS, BATCH = 128, 128, 4, 4, 32
EPSILON = 1e-3  # tandem's layer norm (Keras' default)


def windows(data, context, stride):
    """(train, held out) as [windows, context + 1] byte tensors, cut as tandem cuts."""
    cut = int(len(data) * 0.9) // stride * stride
    def cut_windows(start, end):
        starts = range(start, end - context, stride)
        return torch.tensor([list(data[s:s + context + 1]) for s in starts], dtype=torch.long)
    return cut_windows(0, cut), cut_windows(cut, len(data))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(WIDTH, eps=EPSILON)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.out = nn.Linear(WIDTH, WIDTH)
        self.norm2 = nn.LayerNorm(WIDTH, eps=EPSILON)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(),
                                 nn.Linear(4 * WIDTH, WIDTH))

    def attention(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        heads = [h.view(b, t, HEADS, c // HEADS).transpose(1, 2) for h in (q, k, v)]
        scores = heads[0] @ heads[1].transpose(-2, -1) / math.sqrt(c // HEADS)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        weights = scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
        return self.out((weights @ heads[2]).transpose(1, 2).reshape(b, t, c))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class GptTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(256, WIDTH)
        self.positions = nn.Parameter(torch.empty(CONTEXT, WIDTH).uniform_(-0.05, 0.05))
        self.blocks = nn.Sequential(*[Block() for _ in range(BLOCKS)])
        self.norm = nn.LayerNorm(WIDTH, eps=EPSILON)
        self.output = nn.Linear(WIDTH, 256)

    def forward(self, ids):
        x = self.embedding(ids) + self.positions[:ids.shape[1]]
        return self.output(self.norm(self.blocks(x)))


def loss_of(model, batch):
    logits = model(batch[:, :-1])
    return nn.functional.cross_entropy(logits.reshape(-1, 256), batch[:, 1:].reshape(-1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--steps", type=int, help="stop after this many steps (default: the epochs')")
    p.add_argument("--warmup-steps", type=int, default=3)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="cpu")
    p.add_argument("--amp", choices=["fp16", "bf16"])
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    with gzip.open(TEXT, "rb") as f:
        train, held_out = windows(f.read(), CONTEXT, CONTEXT)
    device = torch.device(args.device)
    model = GptTiny().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    amp = getattr(torch, {"fp16": "float16", "bf16": "bfloat16"}[args.amp]) if args.amp else None
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp == "fp16")
    steps_per_epoch = len(train) // BATCH
    total = args.steps or steps_per_epoch * args.epochs
    step, timed_tokens, start = 0, 0, None
    while step < total:
        order = torch.randperm(len(train))
        for i in range(steps_per_epoch):
            if step == total:
                break
            if step == args.warmup_steps:
                if device.type == "cuda":
                    torch.cuda.synchronize()
                start = time.perf_counter()
            batch = train[order[i * BATCH:(i + 1) * BATCH]].to(device)
            with torch.autocast(device.type, dtype=amp, enabled=amp is not None):
                loss = loss_of(model, batch)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            step += 1
            if start is not None:
                timed_tokens += BATCH * CONTEXT
    if device.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start if start is not None else float("nan")
    model.eval()
    with torch.no_grad():
        losses = [loss_of(model, held_out[i:i + 256].to(device)).item() * len(held_out[i:i + 256])
                  for i in range(0, len(held_out), 256)]
    bpb = sum(losses) / len(held_out) / math.log(2)
    result = {"model": "gpt-tiny", "torch": torch.__version__, "threads": args.threads,
              "device": args.device, "amp": args.amp, "steps": step,
              "timed_steps": step - args.warmup_steps, "tokens_per_second": timed_tokens / seconds,
              "examples_per_second": timed_tokens / CONTEXT / seconds, "val_bpb": bpb}
    print(f"PyTorch {torch.__version__} gpt-tiny, {args.threads} threads, {args.device}"
          f"{', amp ' + args.amp if args.amp else ''}: {step} steps, "
          f"{result['tokens_per_second']:.0f} tokens/s ({result['examples_per_second']:.1f} "
          f"ex/s) over the {result['timed_steps']} after the warm-up; val bpb {bpb:.4f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
