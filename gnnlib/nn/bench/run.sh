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
# install/setup-bench-venv.sh) or PYTHON (an interpreter with torch and
# torch_geometric), GO (default go), KEEP=1 keeps the work folder. On a
# machine without Go, CPUBENCH and INTERP_TEST name prebuilt binaries
# (go build ./gnnlib/nn/bench/cpubench; go test -c ./interp).
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
python="${PYTHON:-$venv/bin/python}"
if [[ ! -x "$python" ]] && ! command -v "$python" >/dev/null; then
	echo "run.sh: no $python; run install/setup-bench-venv.sh first (or make bench-pyg)" >&2
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

cpubench="${CPUBENCH:-}"
if [[ -z "$cpubench" ]]; then
	cpubench="$work/cpubench"
	"$go" build -o "$cpubench" ./gnnlib/nn/bench/cpubench
fi
echo "gnnlab ($threads threads) ..." >&2
"$cpubench" -threads "$threads" -reps "$reps" -export "$work/sbm" "${only[@]}" | tee "$work/go.tsv" >&2
echo "PyG ($threads threads) ..." >&2
# No CUDA: the wheel is the CUDA build, and this is the CPU comparison.
CUDA_VISIBLE_DEVICES= OMP_NUM_THREADS="$threads" "$python" gnnlib/nn/bench/pyg_bench.py --threads "$threads" --reps "$reps" \
	--sbm "$work/sbm" --data "$GNNLAB_DATA" ${only[@]:+--only "${only[1]}"} | tee "$work/pyg.tsv" >&2
echo "interpreter overhead ..." >&2
if [[ -n "${INTERP_TEST:-}" ]]; then
	(cd interp && "$INTERP_TEST" -test.run '^$' -test.bench TrainingLoop -test.count 3 -test.cpu "$threads") | tee "$work/interp.txt" >&2
else
	"$go" test ./interp -run '^$' -bench TrainingLoop -count 3 -cpu "$threads" | tee "$work/interp.txt" >&2
fi

echo
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; threads $threads on both sides"
"$cpubench" -table "$work/go.tsv" "$work/pyg.tsv" "$work/interp.txt"
