#!/usr/bin/env bash
# turbo.sh builds turbo-gnn (the paper's kernels, the bar for one
# GATv2 layer) from its sdist on the GPU machine and times one GATv2 layer
# with gnnbench, PyG and turbo-gnn in one run. The sdist is fetched here
# (the GPU machine reaches no index) into .benchdata:
#   python3 -m pip download --no-deps --no-binary :all: turbo-gnn==0.1.0rc4 -d .benchdata
# or from its PyPI URL; carry .benchdata and .gpubin (make bench-gpu).
# Logs go to ${OUT:-/tmp}.
set -uo pipefail
out="${OUT:-/tmp}"
root="$(pwd)"
site=/tmp/turbo-site
t0=$(date +%s)
if [[ -d "$site/turbo_gnn" ]]; then
	echo "turbo-gnn: already built in $site"
else
rm -rf /tmp/turbo-src && mkdir -p /tmp/turbo-src && tar xzf .benchdata/turbo_gnn-*.tar.gz -C /tmp/turbo-src
(cd /tmp/turbo-src/turbo_gnn-* &&
	TURBO_GNN_FORCE_BUILD=TRUE TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS="$(nproc)" \
		timeout 420 python3 -m pip install -q --no-build-isolation --no-deps --no-index --target "$site" .) \
	>"$out/turbo-build.log" 2>&1
echo "turbo-gnn build: exit $? ($(($(date +%s) - t0)) s)"; tail -3 "$out/turbo-build.log"
fi
timeout 200 .gpubin/gnnbench -only gat,tf >"$out/go.tsv" 2>"$out/go.err"; echo "gnnbench: exit $?"
(cd gnnlib/cuda/bench && ONLY=gat,tf PYTHONUNBUFFERED=1 timeout 200 python3 pyg_bench.py) >"$out/pyg.tsv" 2>"$out/pyg.err"; echo "pyg_bench: exit $?"
(cd gnnlib/cuda/bench && PYTHONPATH="$site" PYTHONUNBUFFERED=1 timeout 200 python3 turbo_bench.py) >"$out/turbo.tsv" 2>"$out/turbo.err"
echo "turbo_bench: exit $?"; tail -3 "$out/turbo.err"
echo
printf 'side\twhat\tgraph\tvariant\tms\tpeak GiB\tnote\n'
cat "$out/go.tsv" "$out/pyg.tsv" "$out/turbo.tsv" | sort -t$'\t' -k2,2 -k3,3 -k4,4 -s
cd "$root"
