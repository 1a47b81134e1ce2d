#!/usr/bin/python3
"""PyTorch's peer of `tandem bench gemm`: the same square products, m = n = k from
--minsize to --maxsize doubling, in each transpose case, timed on a GPU through torch
(cuBLAS on NVIDIA cards). Prints GFLOP/s per size and case, best of --repeat.

  torch_gemm.py [--dtype f32|f16] [--trans NN,NT,TN] [-b 1024] [-e 8192] [-r 3]

f32 runs with TF32 off, so the figure is the float units' (tandem's f32 products run
there too); f16 takes half operands and, as cuBLAS does by default, sums in f32, the
contract of tandem's gemm_f16. Each timed run is one product between CUDA events after
a warm-up; the operands are uniform in [-1, 1) (zeros would flatter the tensor cores).
"""
import argparse
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dtype", choices=["f32", "f16"], default="f32")
    p.add_argument("--trans", default="NN", help="transpose cases, comma-separated")
    p.add_argument("-b", "--minsize", type=int, default=1024)
    p.add_argument("-e", "--maxsize", type=int, default=4096)
    p.add_argument("-r", "--repeat", type=int, default=3)
    p.add_argument("--device", default="cuda")
    args = p.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("torch_gemm.py: no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    # Half products sum in f32 as gemm_f16 does; no reduced-precision partial sums.
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    dtype = torch.float32 if args.dtype == "f32" else torch.float16
    cases = [c.strip().upper() for c in args.trans.split(",") if c.strip()]
    print(f"# torch {torch.__version__} on {torch.cuda.get_device_name()}: {args.dtype} "
          f"operands, GFLOP/s best of {args.repeat}")
    print(f"  {'trans':<5} {'size':>6} {'GFLOP/s':>10}")
    n = args.minsize
    while n <= args.maxsize:
        gen = torch.Generator(device=args.device).manual_seed(n)
        a = torch.rand(n, n, device=args.device, generator=gen, dtype=dtype) * 2 - 1
        b = torch.rand(n, n, device=args.device, generator=gen, dtype=dtype) * 2 - 1
        for case in cases:
            opa = a.t() if case[0] == "T" else a
            opb = b.t() if case[1] == "T" else b
            torch.matmul(opa, opb)
            torch.cuda.synchronize()
            best = 0.0
            for _ in range(args.repeat):
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                start.record()
                torch.matmul(opa, opb)
                stop.record()
                stop.synchronize()
                seconds = start.elapsed_time(stop) / 1e3
                best = max(best, 2.0 * n * n * n / seconds / 1e9)
            print(f"  {case:<5} {n:>6} {best:>10.0f}", flush=True)
        n *= 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
