"""bf16_torch.py: the PyTorch anchors for gnnbench's bf16 part.

cuBLAS through torch.mm at the gemm shapes, float32 (TF32 off) and
bfloat16; torch's CSR SpMM with float32 and bfloat16 features on an
arxiv-sized random graph; and PyG GCN and GATv2 epochs (3 layers, hidden
256, forward, backward, Adam; products-sized GCN too unless PRODUCTS=0) in float32 and under
torch.autocast("cuda", dtype=torch.bfloat16). Median of REPS runs after a
warm-up; lines "torch\\twhat\\tgraph\\tvariant\\tms\\tGiB\\textra", as
pyg_bench.py prints them.
"""
import os
import sys
import time

import torch
import torch.nn.functional as F

REPS = int(os.environ.get("REPS", "10"))
dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False


def timeit(fn):
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


def report(what, gname, variant, ms, gib, extra=""):
    print(f"torch\t{what}\t{gname}\t{variant}\t{ms:.3f}\t{gib:.3f}\t{extra}", flush=True)


def guarded(what, gname, variant, fn, extra=lambda ms: ""):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    try:
        ms = timeit(fn)
        report(what, gname, variant, ms, torch.cuda.max_memory_allocated() / 2**30, extra(ms))
    except Exception as e:  # noqa: BLE001 - an anchor that fails is reported, not fatal
        print(f"torch\t{what}\t{gname}\t{variant}\tERR\t-\t{type(e).__name__}: {str(e)[:80]}", flush=True)


def gemms():
    shapes = [
        ("x·W arxiv 169343x128·128x512", 169343, 128, 512, False, False),
        ("Xᵀ·dY arxiv 128x169343·169343x512", 128, 169343, 512, True, False),
        ("dY·Wᵀ arxiv 169343x256·(128x256)ᵀ", 169343, 256, 128, False, True),
        ("x·W products 2449029x100·100x256", 2449029, 100, 256, False, False),
        ("x·W products 2449029x256·256x256", 2449029, 256, 256, False, False),
        ("x·W products 2449029x256·256x48", 2449029, 256, 48, False, False),
        ("Xᵀ·dY products 256x2449029·2449029x48", 256, 2449029, 48, True, False),
        ("dY·Wᵀ products 2449029x48·(256x48)ᵀ", 2449029, 48, 256, False, True),
        ("x·W products 2449029x256·256x47 (odd)", 2449029, 256, 47, False, False),
        ("square 8192x8192·8192x8192", 8192, 8192, 8192, False, False),
    ]
    for name, m, k, n, ta, tb in shapes:
        for dt in (torch.float32, torch.bfloat16):
            a = torch.randn((k, m) if ta else (m, k), device=dev, dtype=dt)
            b = torch.randn((n, k) if tb else (k, n), device=dev, dtype=dt)
            aa = a.t() if ta else a
            bb = b.t() if tb else b
            flop = 2.0 * m * k * n
            guarded("gemm-" + ("bf16" if dt == torch.bfloat16 else "fp32"), "-", name + " [cuBLAS]",
                    lambda: aa @ bb, lambda ms: f"{flop / ms / 1e9:.1f} TFLOP/s")
            del a, b, aa, bb


def graph(n, m, seed):
    g = torch.Generator(device=dev).manual_seed(seed)
    src = torch.randint(0, n, (m,), device=dev, generator=g)
    dst = torch.randint(0, n, (m,), device=dev, generator=g)
    loop = torch.arange(n, device=dev)
    return torch.stack([torch.cat([src, loop]), torch.cat([dst, loop])])


def spmm(ei, n):
    for dt in (torch.float32, torch.bfloat16):
        a = torch.sparse_coo_tensor(ei.flip(0), torch.ones(ei.shape[1], device=dev, dtype=dt), (n, n)).coalesce().to_sparse_csr()
        for f in (64, 256):
            x = torch.randn(n, f, device=dev, dtype=dt)
            guarded("spmm-" + ("bf16" if dt == torch.bfloat16 else "fp32"), "arxiv", f"F={f} torch-csr", lambda: a @ x)
            del x


def gcn(ei, n, gname="arxiv", fin=128, classes=40, kinds=("gcn", "gatv2")):
    try:
        from torch_geometric.nn import GATv2Conv, GCNConv
    except ImportError as e:
        print("no torch_geometric:", e, file=sys.stderr)
        return
    x = torch.randn(n, fin, device=dev)
    y = torch.randint(0, classes, (n,), device=dev)
    convs_of = {"gcn": GCNConv, "gatv2": lambda a, b: GATv2Conv(a, b, heads=1)}
    for kind in kinds:
        conv = convs_of[kind]
        convs = torch.nn.ModuleList([conv(fin, 256), conv(256, 256), conv(256, classes)]).to(dev)
        opt = torch.optim.Adam(convs.parameters(), lr=0.01)
        for auto in (False, True):
            def step():
                opt.zero_grad()
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=auto):
                    h = x
                    for i, c in enumerate(convs):
                        h = c(h, ei)
                        if i < 2:
                            h = F.dropout(F.relu(h), p=0.5, training=True)
                    loss = F.cross_entropy(h.float(), y)
                loss.backward()
                opt.step()
            guarded(kind + "-epoch", gname, "3 layers, hidden 256 " + ("[PyG autocast bf16]" if auto else "[PyG fp32]"), step)
        del convs, opt


def main():
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__, file=sys.stderr)
    gemms()
    arxiv = graph(169343, 2332486, 2)
    spmm(arxiv, 169343)
    gcn(arxiv, 169343)
    del arxiv
    if os.environ.get("PRODUCTS", "1") != "0":
        # The products-sized GCN epoch (gnnbench -only bf16epoch); an
        # out-of-memory error is reported as the line's ERR.
        try:
            products = graph(2449029, 123718280, 4)
        except Exception as e:  # noqa: BLE001
            print(f"torch\tgcn-epoch\tproducts\t-\tERR\t-\t{type(e).__name__}: {str(e)[:80]}", flush=True)
        else:
            gcn(products, 2449029, "products", 100, 47, ("gcn",))


if __name__ == "__main__":
    main()
