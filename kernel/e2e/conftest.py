"""Fixtures for the end-to-end tests: an isolated Jupyter environment with
the gnnlab kernelspec, and a started kernel with a connected client."""

from __future__ import annotations

import pathlib
from typing import Iterator

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

import kernelenv
from kclient import TIMEOUT


@pytest.fixture(scope="session", autouse=True)
def jupyter_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Install the kernelspec into a temporary prefix and confine Jupyter
    (and gnnlab's history) to temporary folders for the whole run.

    It is autouse so that jupyter_kernel_test's setUpClass, which runs
    before any function fixture, already finds the kernelspec.
    """
    root = tmp_path_factory.mktemp("jupyter")
    prefix = root / "prefix"
    spec = kernelenv.install_kernelspec(kernelenv.gnnlab_binary(), prefix)
    with pytest.MonkeyPatch.context() as mp:
        for k, v in kernelenv.isolated_env(root, prefix).items():
            mp.setenv(k, v)
        yield spec


@pytest.fixture
def history_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """Give the test a history store of its own (GNNLAB_HISTORY)."""
    d = tmp_path / "history"
    d.mkdir()
    monkeypatch.setenv("GNNLAB_HISTORY", str(d))
    return d


def start(km: KernelManager) -> BlockingKernelClient:
    """Start km's kernel and return a client that has seen kernel_info."""
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=TIMEOUT)
    except RuntimeError:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise
    return kc


@pytest.fixture
def kernel(history_dir: pathlib.Path) -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    """A started gnnlab kernel and a ready client; shut down afterwards."""
    km = KernelManager(kernel_name=kernelenv.KERNEL_NAME)
    kc = start(km)
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)
