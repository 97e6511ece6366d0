#!/usr/bin/env bash
# run.sh runs gnnlab's CPU benchmark side by side with PyTorch Geometric and
# prints one table with the ratios (issue 3, part 8); `make bench-pyg` runs it.
#
# Both sides use the same thread count (THREADS, default: all cores), the
# same Cora files, the identical 100k-node synthetic graph (written by
# cpubench -export) and the same MNIST digits, one side after the other.
# Then it runs the interpreter-overhead benchmark (a GCN training loop in a
# notebook cell against the same loop compiled) and adds its ratio.
#
# Usage: gnnlib/nn/bench/run.sh [extra cpubench/pyg_bench flags, e.g. --only cora]
# Environment: THREADS, REPS (measured epochs, default 5), GNNLAB_DATA
# (default ../shared/datasets), BENCH_VENV (default .venv-bench, made by
# install/setup-bench-venv.sh), GO (default go), KEEP=1 keeps the work folder.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
go="${GO:-go}"
threads="${THREADS:-$(nproc)}"
reps="${REPS:-5}"
venv="${BENCH_VENV:-.venv-bench}"
if [[ -z "${GNNLAB_DATA:-}" ]]; then
	GNNLAB_DATA="$(cd .. && pwd)/shared/datasets"
fi
export GNNLAB_DATA
if [[ ! -x "$venv/bin/python" ]]; then
	echo "run.sh: no $venv; run install/setup-bench-venv.sh first (or make bench-pyg)" >&2
	exit 1
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/gnnlab-bench.XXXXXX")"
if [[ "${KEEP:-0}" != 1 ]]; then
	trap 'rm -rf "$work"' EXIT
fi
only=()
if [[ "${1:-}" == "--only" && -n "${2:-}" ]]; then
	only=(-only "$2")
fi

"$go" build -o "$work/cpubench" ./gnnlib/nn/bench/cpubench
echo "gnnlab ($threads threads) ..." >&2
"$work/cpubench" -threads "$threads" -reps "$reps" -export "$work/sbm" "${only[@]}" | tee "$work/go.tsv" >&2
echo "PyG ($threads threads) ..." >&2
# No CUDA: the wheel is the CUDA build, and this is the CPU comparison.
CUDA_VISIBLE_DEVICES= OMP_NUM_THREADS="$threads" "$venv/bin/python" gnnlib/nn/bench/pyg_bench.py --threads "$threads" --reps "$reps" \
	--sbm "$work/sbm" --data "$GNNLAB_DATA" ${only[@]:+--only "${only[1]}"} | tee "$work/pyg.tsv" >&2
echo "interpreter overhead ..." >&2
"$go" test ./interp -run '^$' -bench TrainingLoop -count 3 -cpu "$threads" | tee "$work/interp.txt" >&2

echo
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; threads $threads on both sides"
"$work/cpubench" -table "$work/go.tsv" "$work/pyg.tsv" "$work/interp.txt"
