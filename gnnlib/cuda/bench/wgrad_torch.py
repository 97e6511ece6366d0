"""wgrad_torch.py: torch.matmul's anchor for gnnbench's wgrad part.

The weight gradients Xᵀ·dY of the Cora- and arxiv-sized layers (the shapes
of gnnbench/wgrad.go), float32 with TF32 off, each timed as gnnbench times
its own: the median over REPS runs of 20 products then a synchronisation,
divided by 20. The product is a.t() @ b on a k x m tensor a, so cuBLAS
sees the transposed operand as PyTorch's autograd hands it over. Prints
gnnbench's tab-separated lines, prefixed "torch".
"""
import os
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")
REPS = int(os.environ.get("REPS", "10"))
BATCH = 20

SHAPES = [
    ("Xᵀ·dY cora 1433x2708·2708x16", 1433, 2708, 16),
    ("Xᵀ·dY cora 16x2708·2708x7", 16, 2708, 7),
    ("Xᵀ·dY cora 16x2708·2708x8", 16, 2708, 8),
    ("Xᵀ·dY cora 1433x2708·2708x64", 1433, 2708, 64),
    ("Xᵀ·dY cora 64x2708·2708x7", 64, 2708, 7),
    ("Xᵀ·dY arxiv 128x169343·169343x16", 128, 169343, 16),
    ("Xᵀ·dY arxiv 128x169343·169343x256", 128, 169343, 256),
    ("Xᵀ·dY arxiv 256x169343·169343x256", 256, 169343, 256),
    ("Xᵀ·dY arxiv 256x169343·169343x40", 256, 169343, 40),
]


def main():
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
    for name, m, k, n in SHAPES:
        a = torch.randn(k, m, device=dev)
        b = torch.randn(k, n, device=dev)
        out = torch.empty(m, n, device=dev)

        def run():
            for _ in range(BATCH):
                torch.matmul(a.t(), b, out=out)
            torch.cuda.synchronize()

        run()
        ts = []
        for _ in range(REPS):
            t0 = time.perf_counter()
            run()
            ts.append((time.perf_counter() - t0) * 1e3 / BATCH)
        ts.sort()
        ms = ts[len(ts) // 2]
        print(f"torch\twgrad-fp32\t-\t{name} [torch.matmul]\t{ms:.3f}\t0.000\t"
              f"{ms * 1e3:.1f} µs, {2.0 * m * k * n / ms / 1e9:.2f} TFLOP/s; median of {REPS} runs of {BATCH} products", flush=True)


if __name__ == "__main__":
    main()
