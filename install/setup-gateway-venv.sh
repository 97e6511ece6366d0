#!/usr/bin/env bash
# setup-gateway-venv.sh creates the Python environment that runs Jupyter
# Enterprise Gateway (install/requirements-gateway.txt) for the remote-kernel
# test, kernel/e2e/test_gateway.py. It is separate from .venv because the
# gateway pins older Jupyter packages than JupyterLab 4 needs; `make
# test-e2e` runs this script first.
#
# Idempotent: a stamp file records the hash of the pins and of the Python
# that built the venv, and pip runs only when that hash differs.
#
# When pip cannot install the gateway (no network), the script says so,
# leaves the reason in VENV_DIR/.gnnlab-gateway-unavailable and exits 0:
# the gateway test then skips with that reason, except under CI=true,
# where it fails.
#
# Usage: install/setup-gateway-venv.sh [VENV_DIR]   (default: .venv-gateway in the repo root)
# Environment: PYTHON picks the interpreter (default python3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$root/.venv-gateway}"
python="${PYTHON:-python3}"
reqs="$root/install/requirements-gateway.txt"
stamp="$venv/.gnnlab-gateway.sha256"
unavailable="$venv/.gnnlab-gateway-unavailable"

if ! command -v "$python" >/dev/null 2>&1; then
	echo "setup-gateway-venv: $python not found; install Python 3.9 or later (Debian: apt-get install python3 python3-venv)" >&2
	exit 1
fi

want="$( { cat "$reqs"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
if [[ -x "$venv/bin/jupyter-enterprisegateway" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	exit 0
fi

if [[ ! -x "$venv/bin/python" ]]; then
	echo "setup-gateway-venv: creating $venv" >&2
	"$python" -m venv "$venv"
fi
rm -f "$unavailable" "$stamp"
echo "setup-gateway-venv: installing Jupyter Enterprise Gateway into $venv (first time: about a minute)" >&2
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! "$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$reqs" >"$log" 2>&1; then
	cat "$log" >&2
	{ echo "pip could not install $(grep -v '^\s*\(#\|$\)' "$reqs" | tr '\n' ' ')(offline?):"; tail -n 3 "$log"; } >"$unavailable"
	echo "setup-gateway-venv: Enterprise Gateway is not installed; kernel/e2e/test_gateway.py will skip (and fail under CI=true)" >&2
	exit 0
fi
echo "$want" >"$stamp"
echo "setup-gateway-venv: ready" >&2
