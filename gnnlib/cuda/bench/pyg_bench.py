"""pyg_bench.py: the PyTorch Geometric side of gnnlib/cuda's benchmark.

Same synthetic shapes as gnnbench (uniform random edges plus self-loops,
Cora-, ogbn-arxiv- and ogbn-products-sized), same measurements: torch CSR
SpMM, one GATv2Conv layer forward+backward, and full-batch GCN, GraphSAGE,
GAT and GATv2 training epochs (forward, backward, Adam), median time of REPS runs after a
warm-up, peak memory from torch.cuda.max_memory_allocated with the data
already resident. Prints lines "pyg\\twhat\\tgraph\\tvariant\\tms\\tGiB\\textra".
The graphs are drawn with torch's generator, so they are the same
distribution as gnnbench's, not the same edges; the R-MAT graphs (part
rmat) are read from the files gnnbench -edges wrote into RMAT_DIR, so they
are the same edges.
"""
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.nn import GATConv, GATv2Conv, GCNConv, SAGEConv, TransformerConv

REPS = int(os.environ.get("REPS", "10"))
PRODUCTS = os.environ.get("PRODUCTS", "1") == "1"
dev = torch.device("cuda")


def graph(n, m, seed):
    g = torch.Generator(device=dev).manual_seed(seed)
    src = torch.randint(0, n, (m,), device=dev, generator=g)
    dst = torch.randint(0, n, (m,), device=dev, generator=g)
    loop = torch.arange(n, device=dev)
    return torch.stack([torch.cat([src, loop]), torch.cat([dst, loop])])


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
    ms_s = "OOM" if ms is None else f"{ms:.3f}"
    gib_s = "-" if gib is None else f"{gib:.3f}"
    print(f"pyg\t{what}\t{gname}\t{variant}\t{ms_s}\t{gib_s}\t{extra}", flush=True)


def guarded(what, gname, variant, fn):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    try:
        ms = timeit(fn)
        report(what, gname, variant, ms, torch.cuda.max_memory_allocated() / 2**30)
    except torch.OutOfMemoryError:
        report(what, gname, variant, None, None, "out of memory")
    torch.cuda.empty_cache()


def spmm(gname, ei, n):
    a = torch.sparse_coo_tensor(ei.flip(0), torch.ones(ei.shape[1], device=dev), (n, n)).coalesce().to_sparse_csr()
    for f in (64, 256):
        x = torch.randn(n, f, device=dev)
        guarded("spmm", gname, f"F={f} torch-csr", lambda: a @ x)
        del x


class Net(torch.nn.Module):
    def __init__(self, kind, fin, hidden, out, layers):
        super().__init__()
        dims = [fin] + [hidden] * (layers - 1) + [out]
        mk = {
            "gcn": lambda a, b: GCNConv(a, b),
            "sage": lambda a, b: SAGEConv(a, b),
            "gat": lambda a, b: GATConv(a, b, heads=1),
            "gatv2": lambda a, b: GATv2Conv(a, b, heads=1),
        }[kind]
        self.convs = torch.nn.ModuleList(mk(dims[i], dims[i + 1]) for i in range(layers))

    def forward(self, x, ei):
        for i, c in enumerate(self.convs):
            x = c(x, ei)
            if i < len(self.convs) - 1:
                x = F.dropout(F.relu(x), p=0.5, training=True)
        return x


def epoch(what, kind, gname, ei, n, fin, hidden, out, layers):
    x = torch.randn(n, fin, device=dev)
    y = torch.randint(0, out, (n,), device=dev)
    try:
        model = Net(kind, fin, hidden, out, layers).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)

        def step():
            opt.zero_grad()
            loss = F.cross_entropy(model(x, ei), y)
            loss.backward()
            opt.step()

        guarded(what, gname, f"{layers} layers, hidden {hidden}", step)
    except torch.OutOfMemoryError:
        report(what, gname, f"{layers} layers, hidden {hidden}", None, None, "out of memory")
    del x, y
    torch.cuda.empty_cache()


def gat_layer(gname, ei, n, fin, h, c, kind=GATv2Conv, what="gatv2-layer"):
    x = torch.randn(n, fin, device=dev)
    dout = torch.randn(n, h * c, device=dev)
    conv = kind(fin, c, heads=h).to(dev)

    def step():
        conv.zero_grad()
        conv(x, ei).backward(dout)

    guarded(what, gname, f"{h}x{c}", step)
    del x, dout, conv


def rmat_graphs():
    """The R-MAT graphs gnnbench -edges wrote: (name, edge_index, nodes)."""
    d = os.environ.get("RMAT_DIR", "")
    if not d:
        return []
    out = []
    for f in sorted(os.listdir(d)):
        if f.endswith(".edges"):
            ei = torch.from_numpy(np.fromfile(os.path.join(d, f), dtype=np.int32).reshape(2, -1).astype(np.int64)).to(dev)
            out.append((f[: -len(".edges")], ei, int(ei.max()) + 1))
    return out


def tf_layer(gname, ei, n, fin, h, c):
    x = torch.randn(n, fin, device=dev)
    dout = torch.randn(n, h * c, device=dev)
    # concat, root_weight (lin_skip), no beta gate, no edge features: what
    # gnnbench's transformer-layer computes.
    conv = TransformerConv(fin, c, heads=h).to(dev)

    def step():
        conv.zero_grad()
        conv(x, ei).backward(dout)

    guarded("transformer-layer", gname, f"{h}x{c}", step)
    del x, dout, conv


def sampled_sage(gname, ei, n, fin, classes, batches, fanouts=(15, 10, 5), bs=1024, hidden=256):
    """gnnbench's sampled part: a 3-layer GraphSAGE (mean, hidden 256, ReLU
    and dropout 0.5) trained on neighbour-sampled mini-batches of 1024
    seeds, fan-outs 15, 10, 5 from the seeds outwards. PyG's NeighborLoader
    needs pyg-lib or torch-sparse, which the device machine lacks, so the
    sampler here is plain torch on the GPU: each frontier node draws its
    fan-out of in-neighbours uniformly WITH replacement (PyG's default is
    without), the new nodes are numbered after the frontier (PyG's
    relabelling), and each layer runs SAGEConv on its bipartite block. It
    samples on the device, so it is no slower than PyG's CPU sampler
    would be. Reports the time per batch (sampling, feature gather and
    the step) over `batches` batches after two warm-ups."""
    src, dst = ei[0], ei[1]
    order = torch.argsort(dst)
    col = src[order]
    rowptr = torch.zeros(n + 1, dtype=torch.long, device=dev)
    rowptr[1:] = torch.cumsum(torch.bincount(dst, minlength=n), 0)
    x = torch.randn(n, fin, device=dev)
    y = torch.randint(0, classes, (n,), device=dev)
    dims = [fin, hidden, hidden, classes]
    convs = torch.nn.ModuleList(SAGEConv(dims[i], dims[i + 1]) for i in range(3)).to(dev)
    opt = torch.optim.Adam(convs.parameters(), lr=0.01)
    assoc = torch.full((n,), -1, dtype=torch.long, device=dev)
    perm = torch.randperm(n, device=dev)

    def sample(seeds):
        nodes, blocks = seeds, []
        assoc[seeds] = torch.arange(len(seeds), device=dev)
        for k in fanouts:
            start = rowptr[nodes]
            deg = rowptr[nodes + 1] - start
            pick = (torch.rand(len(nodes), k, device=dev) * deg.unsqueeze(1)).long()
            keep = (deg > 0).unsqueeze(1).expand(-1, k).flatten()
            nbr = col[(start.unsqueeze(1) + pick).clamp(max=len(col) - 1)].flatten()[keep]
            dloc = torch.arange(len(nodes), device=dev).repeat_interleave(k)[keep]
            new = torch.unique(nbr[assoc[nbr] < 0])
            assoc[new] = torch.arange(len(nodes), len(nodes) + len(new), device=dev)
            blocks.append((torch.stack([assoc[nbr], dloc]), len(nodes)))
            nodes = torch.cat([nodes, new])
        assoc[nodes] = -1
        return nodes, blocks[::-1]

    def step(i):
        seeds = perm[(i * bs) % (n - bs):][:bs]
        nodes, blocks = sample(seeds)
        h = x[nodes]
        for j, (eb, ndst) in enumerate(blocks):
            h = convs[j]((h, h[:ndst]), eb)
            if j < 2:
                h = F.dropout(F.relu(h), p=0.5, training=True)
        opt.zero_grad()
        loss = F.cross_entropy(h, y[seeds])
        loss.backward()
        opt.step()
        return loss

    torch.cuda.reset_peak_memory_stats()
    for i in range(2):
        step(i)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(2, 2 + batches):
        loss = step(i)
    loss.item()
    ms = (time.perf_counter() - t0) * 1e3 / batches
    report("sampled-sage", gname, "3 layers, hidden 256, fan-outs 15,10,5, batch 1024, plain-torch GPU sampler (with replacement)", ms,
           torch.cuda.max_memory_allocated() / 2**30, f"per batch over {batches} batches")


def main():
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__, file=sys.stderr)
    parts = os.environ.get("ONLY", "spmm,gat,tf,gcn,gatv2,api").split(",")
    cora = graph(2708, 10556, 1)
    arxiv = graph(169343, 2332486, 2)
    prod = graph(2449029, 123718280, 4) if PRODUCTS else None
    if "spmm" in parts:
        spmm("arxiv", arxiv, 169343)
        if prod is not None:
            spmm("products", prod, 2449029)
    if "gat" in parts:
        gat_layer("arxiv", arxiv, 169343, 128, 1, 256)
        gat_layer("arxiv", arxiv, 169343, 128, 4, 64)
        if prod is not None:
            gat_layer("products", prod, 2449029, 100, 1, 256)
    if "tf" in parts:
        tf_layer("arxiv", arxiv, 169343, 128, 4, 64)
        if prod is not None:
            tf_layer("products", prod, 2449029, 100, 4, 64)
    if "gcn" in parts:
        epoch("gcn-epoch", "gcn", "cora", cora, 2708, 1433, 16, 7, 2)
        epoch("gcn-epoch", "gcn", "arxiv", arxiv, 169343, 128, 256, 40, 3)
        if prod is not None:
            epoch("gcn-epoch", "gcn", "products", prod, 2449029, 100, 256, 47, 3)
    if "gatv2" in parts:
        epoch("gatv2-epoch", "gatv2", "cora", cora, 2708, 1433, 16, 7, 2)
        epoch("gatv2-epoch", "gatv2", "arxiv", arxiv, 169343, 128, 256, 40, 3)
    if "api" in parts:
        # The models gnnbench's api part trains with gnnlib/nn.
        for kind in ("sage", "gat"):
            epoch(f"{kind}-epoch", kind, "cora", cora, 2708, 1433, 16, 7, 2)
            epoch(f"{kind}-epoch", kind, "arxiv", arxiv, 169343, 128, 256, 40, 3)
    if "sampled" in parts:
        sampled_sage("arxiv", arxiv, 169343, 128, 40, 20)
        if prod is not None:
            # The target size (plain-torch sampler, as above).
            sampled_sage("products", prod, 2449029, 100, 47, 20)
    if "rmat" in parts:
        # gnnbench's rmat part, on the same edges.
        for name, ei, n in rmat_graphs():
            gat_layer(name, ei, n, 128, 1, 256)
            gat_layer(name, ei, n, 128, 1, 256, GATConv, "gat-layer")
            tf_layer(name, ei, n, 128, 4, 64)
            for kind in ("gatv2", "gcn", "gat", "sage"):
                epoch(f"{kind}-epoch", kind, name, ei, n, 128, 256, 40, 3)


if __name__ == "__main__":
    main()
