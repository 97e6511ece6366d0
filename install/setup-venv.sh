#!/usr/bin/env bash
# setup-venv.sh creates the project-local Python virtual environment that
# `make lab`, `make test-e2e` and `make bench-kernel` use, and installs
# install/requirements.txt into it, then the local papermill_gnnlab
# package (papermill's Go parameters).
#
# It is idempotent and fast when nothing changed: a stamp file in the venv
# records the hash of the requirements (and of the Python that built it), and
# pip runs only when that hash differs.
#
# Usage: install/setup-venv.sh [VENV_DIR]   (default: .venv in the repo root)
# Environment: PYTHON picks the interpreter (default python3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$root/.venv}"
python="${PYTHON:-python3}"
reqs="$root/install/requirements.txt"
local_pkg="$root/install/papermill_gnnlab"
stamp="$venv/.gnnlab-requirements.sha256"

if ! command -v "$python" >/dev/null 2>&1; then
	echo "setup-venv: $python not found; install Python 3.9 or later (Debian: apt-get install python3 python3-venv)" >&2
	exit 1
fi

# The hash covers the requirements, the local package's files and the
# interpreter's version, so a new Python, a changed pin or an edited
# translator rebuilds what is needed.
want="$( { cat "$reqs"; find "$local_pkg" -name '*.py' -o -name '*.toml' | sort | xargs cat; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	exit 0
fi

if [[ ! -x "$venv/bin/python" ]]; then
	echo "setup-venv: creating $venv" >&2
	"$python" -m venv "$venv"
fi

echo "setup-venv: installing $(grep -cv '^\s*\(#\|$\)' "$reqs") pinned packages into $venv (first time: a few minutes)" >&2
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet --upgrade pip
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$reqs"
# Not editable: the venv keeps working when the checkout moves.
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet --no-deps --force-reinstall "$local_pkg"
echo "$want" >"$stamp"
echo "setup-venv: ready" >&2
