"""turbo_bench.py: the turbo-gnn side of gnnlib/cuda's GATv2 layer benchmark.

turbo-gnn (PyPI, the IO-aware GNN kernels paper's code) is the bar issue 7
sets for one GATv2 layer. This times its fused gatv2_aggr the way
pyg_bench.py times PyG's GATv2Conv: the same synthetic graphs (pyg_bench's
generator and seeds), x_l = lin_l(x) and x_r = lin_r(x) (Linear layers
with bias, as in GATv2Conv), the fused attention, and the backward pass
from a random upstream gradient; median of REPS runs after a warm-up, peak
memory from torch.cuda.max_memory_allocated with the data resident. The
graph is wrapped once (turbo-gnn's forward and transposed CSR). Prints
lines "turbo-gnn\\twhat\\tgraph\\tvariant\\tms\\tGiB\\textra".

Needs turbo_gnn importable: bench/turbo.sh builds it from its sdist.
"""

import sys

import torch
from turbo_gnn import AdjacencyForwardBackwardWithNodeBuckets, gatv2_aggr, graph_transformer_aggr

import pyg_bench as pb


def report(what, gname, variant, ms, gib, extra=""):
    ms_s = "OOM" if ms is None else f"{ms:.3f}"
    gib_s = "-" if gib is None else f"{gib:.3f}"
    print(f"turbo-gnn\t{what}\t{gname}\t{variant}\t{ms_s}\t{gib_s}\t{extra}", flush=True)


def gat_layer(gname, ei, n, fin, h, c):
    torch.cuda.empty_cache()
    g = AdjacencyForwardBackwardWithNodeBuckets.from_edge_list(ei, num_nodes=n).to(pb.dev)
    x = torch.randn(n, fin, device=pb.dev)
    dout = torch.randn(n, h * c, device=pb.dev)
    lin_l = torch.nn.Linear(fin, h * c).to(pb.dev)
    lin_r = torch.nn.Linear(fin, h * c).to(pb.dev)
    att = torch.nn.Parameter(torch.randn(h, c, device=pb.dev) * 0.1)

    def step():
        lin_l.zero_grad()
        lin_r.zero_grad()
        att.grad = None
        xl = lin_l(x).view(n, h, c)
        xr = lin_r(x).view(n, h, c)
        # x: the destination (target) side, x_neighbors: the messages;
        # the output is [N, H, D].
        out = gatv2_aggr(g, xr, xl, att, 0.2)
        out.reshape(n, h * c).backward(dout)

    torch.cuda.reset_peak_memory_stats()
    try:
        ms = pb.timeit(step)
        report("gatv2-layer", gname, f"{h}x{c}", ms, torch.cuda.max_memory_allocated() / 2**30)
    except torch.OutOfMemoryError:
        report("gatv2-layer", gname, f"{h}x{c}", None, None, "out of memory")
    del g, x, dout, lin_l, lin_r, att
    torch.cuda.empty_cache()


def tf_layer(gname, ei, n, fin, h, c):
    """One TransformerConv layer as gnnbench times it: q, k, v and skip
    projections (Linear with bias), turbo-gnn's fused attention, out =
    attention + skip, backward from a random upstream gradient."""
    torch.cuda.empty_cache()
    g = AdjacencyForwardBackwardWithNodeBuckets.from_edge_list(ei, num_nodes=n).to(pb.dev)
    x = torch.randn(n, fin, device=pb.dev)
    dout = torch.randn(n, h * c, device=pb.dev)
    lins = [torch.nn.Linear(fin, h * c).to(pb.dev) for _ in range(4)]

    def step():
        for lin in lins:
            lin.zero_grad()
        q, k, v = (lin(x).view(n, h, c) for lin in lins[:3])
        out = graph_transformer_aggr(g, x, q, k, v, c ** -0.5).reshape(n, h * c) + lins[3](x)
        out.backward(dout)

    torch.cuda.reset_peak_memory_stats()
    try:
        ms = pb.timeit(step)
        report("transformer-layer", gname, f"{h}x{c}", ms, torch.cuda.max_memory_allocated() / 2**30)
    except torch.OutOfMemoryError:
        report("transformer-layer", gname, f"{h}x{c}", None, None, "out of memory")
    del g, x, dout, lins
    torch.cuda.empty_cache()


def main():
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__, file=sys.stderr)
    arxiv = pb.graph(169343, 2332486, 2)
    gat_layer("arxiv", arxiv, 169343, 128, 1, 256)
    gat_layer("arxiv", arxiv, 169343, 128, 4, 64)
    tf_layer("arxiv", arxiv, 169343, 128, 4, 64)
    del arxiv
    if pb.PRODUCTS:
        prod = pb.graph(2449029, 123718280, 4)
        gat_layer("products", prod, 2449029, 100, 1, 256)
        tf_layer("products", prod, 2449029, 100, 4, 64)


if __name__ == "__main__":
    main()
