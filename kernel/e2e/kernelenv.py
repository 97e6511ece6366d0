"""Shared set-up for the end-to-end tests and the kernel benchmark.

It finds the gnnlab binary, installs its kernelspec into a throwaway prefix
and points Jupyter (and gnnlab's history) at temporary folders, so a run never
reads or writes the user's own Jupyter configuration.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
KERNEL_NAME = "gnnlab"


def gnnlab_binary() -> pathlib.Path:
    """Return the binary under test: $GNNLAB_BIN, else bin/gnnlab."""
    path = pathlib.Path(os.environ.get("GNNLAB_BIN") or REPO / "bin" / "gnnlab")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(
            f"gnnlab binary {path} not found: run `make build` or set GNNLAB_BIN"
        )
    return path


def install_kernelspec(binary: pathlib.Path, prefix: pathlib.Path) -> dict:
    """Run `gnnlab install --prefix PREFIX` and return the kernel.json written."""
    subprocess.run(
        [str(binary), "install", "--prefix", str(prefix)],
        check=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    spec = prefix / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json"
    with open(spec, encoding="utf-8") as f:
        return json.load(f)


def isolated_env(root: pathlib.Path, prefix: pathlib.Path) -> dict[str, str]:
    """Return environment variables that confine Jupyter and gnnlab to root.

    JUPYTER_PATH comes first in Jupyter's search path, so the kernelspec in
    prefix wins over any installed for the user.
    """
    for sub in ("runtime", "data", "config", "history"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return {
        "JUPYTER_PATH": str(prefix / "share" / "jupyter"),
        "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
        "JUPYTER_DATA_DIR": str(root / "data"),
        "JUPYTER_CONFIG_DIR": str(root / "config"),
        "JUPYTER_PLATFORM_DIRS": "1",
        "GNNLAB_HISTORY": str(root / "history"),
    }
