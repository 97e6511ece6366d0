#!/usr/bin/env bash
# setup-bench-venv.sh creates the Python environment that `make bench-pyg`
# uses for the PyTorch Geometric side of the CPU benchmark
# (gnnlib/nn/bench): torch, torch_geometric and numpy, pinned below.
#
# It is separate from .venv because torch is large (about 4 GB installed)
# and only the benchmark needs it. Only PyPI is reachable here, and PyPI's
# Linux x86_64 torch wheel is the CUDA build: libtorch.so links
# libtorch_cuda.so, which needs the CUDA runtime libraries at load time even
# when only the CPU is used, so the nvidia/cuda-toolkit wheels are installed
# too (as pip resolves them). triton is left out: it serves torch.compile and
# GPU kernels, neither of which the benchmark uses.
#
# It is idempotent: a stamp file records the hash of the pins and of the
# Python that built the venv, and pip runs only when that hash differs.
#
# Usage: install/setup-bench-venv.sh [VENV_DIR]   (default: .venv-bench in the repo root)
# Environment: PYTHON picks the interpreter (default python3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$root/.venv-bench}"
python="${PYTHON:-python3}"
stamp="$venv/.gnnlab-bench.sha256"

# The same versions as on the project's GPU machine (DESIGN.md), so CPU and
# GPU tables compare like with like.
torch_pin="torch==2.11.0"
pyg_pin="torch_geometric==2.8.1"
# torch's own pure-Python requirements (its METADATA), installed by hand
# because torch itself goes in with --no-deps to skip triton; numpy for the
# benchmark's .npy files and scipy, which PyG's Planetoid reader needs.
pure=("filelock" "typing-extensions>=4.10.0" "setuptools<82" "sympy>=1.13.3"
	"networkx>=2.5.1" "jinja2" "fsspec>=0.8.5" "numpy" "scipy")

if ! command -v "$python" >/dev/null 2>&1; then
	echo "setup-bench-venv: $python not found; install Python 3.10 or later" >&2
	exit 1
fi

want="$( { echo "$torch_pin $pyg_pin ${pure[*]}"; cat "${BASH_SOURCE[0]}"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	exit 0
fi

if [[ ! -x "$venv/bin/python" ]]; then
	echo "setup-bench-venv: creating $venv" >&2
	"$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)

echo "setup-bench-venv: installing $torch_pin and $pyg_pin into $venv (first time: about 3 GB to download)" >&2
"${pip[@]}" install --upgrade pip
"${pip[@]}" install "${pure[@]}"
"${pip[@]}" install --no-deps "$torch_pin"
# The CUDA runtime libraries that libtorch_cuda.so links, read from torch's
# own metadata so that a new pin brings its matching versions.
mapfile -t cuda < <("$venv/bin/python" - <<'PY'
from importlib.metadata import requires
for r in requires("torch") or []:
    name, _, marker = r.partition(";")
    if "extra ==" in marker or name.startswith(("triton", "filelock", "typing", "setuptools", "sympy", "networkx", "jinja2", "fsspec")):
        continue
    print(name.strip())
PY
)
if ((${#cuda[@]})); then
	"${pip[@]}" install "${cuda[@]}"
fi
"${pip[@]}" install "$pyg_pin"
CUDA_VISIBLE_DEVICES= "$venv/bin/python" -W "ignore:CUDA initialization" -c 'import torch, torch_geometric, scipy; x = torch.ones(2, 2, requires_grad=True); (x @ x).sum().backward(); print("setup-bench-venv: torch", torch.__version__, "torch_geometric", torch_geometric.__version__, "threads", torch.get_num_threads())' >&2
echo "$want" >"$stamp"
