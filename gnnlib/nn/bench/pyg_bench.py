"""pyg_bench.py: the PyTorch Geometric side of gnnlab's CPU benchmark.

Trains the same models as cpubench (gnnlib/nn/bench/cpubench) on the same
data with the same thread count, full batch with Adam, and prints one
tab-separated line per case: "pyg\\tMODEL\\tDATASET\\tMS_PER_EPOCH\\tNOTE",
the median of the measured epochs after the warm-up ones.

- Cora: torch_geometric.datasets.Planetoid over a temporary root into which
  the Planetoid raw files are copied (no download), NormalizeFeatures.
- sbm100k: the .npy files cpubench -export wrote (CSR by destination,
  features, labels, training nodes), so both sides train on one graph.
- LeNet-5: plain torch.nn on the first 8,000 MNIST test digits, read from
  the IDX files, one epoch of shuffled mini-batches.

Usage: pyg_bench.py --threads N --sbm DIR --data GNNLAB_DATA [--reps R]
"""
import argparse
import gzip
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings

# The PyPI wheel is the CUDA build; torch_geometric's import probes CUDA,
# which warns on a machine without a usable driver. This is the CPU side.
warnings.filterwarnings("ignore", message="CUDA initialization")

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.datasets import Planetoid
from torch_geometric.nn import GATConv, GCNConv, SAGEConv
import torch_geometric.transforms as T


def measure(epoch, reps, warmup, min_time=2.0):
    for _ in range(warmup):
        epoch()
    ts = []
    start = time.perf_counter()
    while len(ts) < reps or (time.perf_counter() - start < min_time and len(ts) < 50):
        t0 = time.perf_counter()
        epoch()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median_low(ts)  # as cpubench: the lower middle value


class GCN(torch.nn.Module):
    # cached=True: PyG's own Cora example; gnnlab caches the normalised
    # graph too (graph.GCNNorm is computed once per graph).
    def __init__(self, fin, out):
        super().__init__()
        self.c1, self.c2 = GCNConv(fin, 16, cached=True), GCNConv(16, out, cached=True)

    def forward(self, x, ei):
        x = F.dropout(x, 0.5, self.training)
        x = F.relu(self.c1(x, ei))
        x = F.dropout(x, 0.5, self.training)
        return self.c2(x, ei)


class SAGE(torch.nn.Module):
    def __init__(self, fin, out):
        super().__init__()
        self.c1, self.c2 = SAGEConv(fin, 64, aggr="mean"), SAGEConv(64, out, aggr="mean")

    def forward(self, x, ei):
        x = F.dropout(x, 0.5, self.training)
        x = F.relu(self.c1(x, ei))
        x = F.dropout(x, 0.5, self.training)
        return self.c2(x, ei)


class GAT(torch.nn.Module):
    def __init__(self, fin, out):
        super().__init__()
        self.c1 = GATConv(fin, 8, heads=8, dropout=0.6)
        self.c2 = GATConv(64, out, heads=1, concat=False, dropout=0.6)

    def forward(self, x, ei):
        x = F.dropout(x, 0.6, self.training)
        x = F.elu(self.c1(x, ei))
        x = F.dropout(x, 0.6, self.training)
        return self.c2(x, ei)


class LeNet5(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 6, 5, padding=2)
        self.c2 = torch.nn.Conv2d(6, 16, 5)
        self.f1, self.f2, self.f3 = torch.nn.Linear(400, 120), torch.nn.Linear(120, 84), torch.nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = x.flatten(1)
        return self.f3(F.relu(self.f2(F.relu(self.f1(x)))))


def report(model, dataset, ms, note=""):
    print(f"pyg\t{model}\t{dataset}\t{ms:.3f}\t{note}", flush=True)


def node_benchmarks(name, x, ei, y, train, classes, args):
    for label, cls in (("GCN", GCN), ("GraphSAGE", SAGE), ("GAT", GAT)):
        if not wanted(args, label, name):
            continue
        torch.manual_seed(1)
        model = cls(x.shape[1], classes)
        opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
        model.train()

        def epoch():
            opt.zero_grad()
            loss = F.cross_entropy(model(x, ei)[train], y[train])
            loss.backward()
            opt.step()

        report(label, name, measure(epoch, args.reps, args.warmup), f"nodes={x.shape[0]} edges={ei.shape[1]}")


def wanted(args, *names):
    if not args.only:
        return True
    only = args.only.lower().split(",")
    return any(n.lower() in only for n in names)


def cora(args):
    root = tempfile.mkdtemp(prefix="pyg-cora-")
    try:
        raw = os.path.join(root, "Cora", "raw")
        os.makedirs(raw)
        src = os.path.join(args.data, "planetoid")
        for f in os.listdir(src):
            if f.startswith("ind.cora."):
                shutil.copy(os.path.join(src, f), raw)
        ds = Planetoid(root, "Cora", transform=T.NormalizeFeatures())
        d = ds[0]
        train = d.train_mask.nonzero().view(-1)
        node_benchmarks("cora", d.x, d.edge_index, d.y, train, ds.num_classes, args)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def sbm(args):
    load = lambda f: np.load(os.path.join(args.sbm, f))
    indptr, indices = load("indptr.npy"), load("indices.npy")
    # CSR by destination: row v holds the sources of v's incoming edges.
    dst = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    ei = torch.from_numpy(np.stack([indices, dst])).long()
    x = torch.from_numpy(load("x.npy"))
    y = torch.from_numpy(load("y.npy")).long()
    train = torch.from_numpy(load("train.npy")).long()
    node_benchmarks("sbm100k", x, ei, y, train, int(y.max()) + 1, args)


def read_idx(path):
    with gzip.open(path, "rb") as f:
        b = f.read()
    ndim = b[3]
    dims = [int.from_bytes(b[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(b, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def lenet(args):
    d = os.path.join(args.data, "mnist")
    xs = torch.from_numpy(read_idx(os.path.join(d, "t10k-images-idx3-ubyte.gz"))[:8000].astype(np.float32) / 255).unsqueeze(1)
    ys = torch.from_numpy(read_idx(os.path.join(d, "t10k-labels-idx1-ubyte.gz"))[:8000].astype(np.int64))
    torch.manual_seed(1)
    model = LeNet5()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    model.train()
    g = torch.Generator().manual_seed(1)

    def epoch():
        order = torch.randperm(len(ys), generator=g)
        for lo in range(0, len(order), args.batch):
            rows = order[lo:lo + args.batch]
            loss = F.cross_entropy(model(xs[rows]), ys[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()

    report("LeNet-5", "mnist8k", measure(epoch, max(1, (args.reps + 1) // 2), args.warmup), f"batch={args.batch}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--sbm", help="folder of cpubench -export's .npy files")
    p.add_argument("--data", default=os.environ.get("GNNLAB_DATA"), help="the datasets folder (planetoid/, mnist/)")
    p.add_argument("--only", default="", help="comma-separated model or dataset names")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(f"# torch {torch.__version__}, torch_geometric {__import__('torch_geometric').__version__}, "
          f"threads {torch.get_num_threads()}", file=sys.stderr)
    if wanted(args, "cora", "GCN", "GraphSAGE", "GAT"):
        cora(args)
    if args.sbm and wanted(args, "sbm100k", "GCN", "GraphSAGE", "GAT"):
        sbm(args)
    if wanted(args, "LeNet-5", "mnist8k"):
        lenet(args)


if __name__ == "__main__":
    main()
