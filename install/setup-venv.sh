#!/usr/bin/env bash
# setup-venv.sh creates the project-local Python virtual environment that
# `make lab`, `make test-e2e` and `make bench-kernel` use, and installs
# install/requirements.txt into it.
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
stamp="$venv/.gnnlab-requirements.sha256"

if ! command -v "$python" >/dev/null 2>&1; then
	echo "setup-venv: $python not found; install Python 3.9 or later (Debian: apt-get install python3 python3-venv)" >&2
	exit 1
fi

# The hash covers the requirements and the interpreter's version, so a new
# Python or a changed pin rebuilds what is needed.
want="$( { cat "$reqs"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"

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
echo "$want" >"$stamp"
echo "setup-venv: ready" >&2
