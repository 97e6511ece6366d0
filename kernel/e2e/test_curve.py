"""CurveZMQ transport encryption with jupyter_client 8.10's
transport_encryption: the real client (libzmq with libsodium) talks to the
kernel over CURVE on all five sockets; a plaintext peer and a peer with
another server key get nothing, and the kernel serves on."""

from __future__ import annotations

import json
import socket
from typing import Iterator

import pytest
import zmq
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

import kernelenv
from conftest import start
from kclient import execute_ok, stdout

pytestmark = pytest.mark.skipif(not zmq.has("curve"), reason="libzmq without CURVE")


@pytest.fixture
def curve_kernel(history_dir) -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    km = KernelManager(kernel_name=kernelenv.KERNEL_NAME, transport_encryption="required")
    kc = start(km)
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)


def test_kernelspec_declares_curve(jupyter_env):
    assert "curve" in jupyter_env["metadata"]["supported_encryption"]


def test_encrypted_session(curve_kernel):
    km, kc = curve_kernel
    with open(km.connection_file, encoding="utf-8") as f:
        info = json.load(f)
    assert len(info["curve_publickey"]) == 40 and len(info["curve_secretkey"]) == 40
    out = execute_ok(kc, 'fmt.Println("over curve", 6*7)')
    assert stdout(out) == "over curve 42\n"
    assert kc.hb_channel.is_beating()
    # Every socket greets with the CURVE mechanism as its server.
    for name in ("shell", "control", "stdin", "iopub", "hb"):
        with socket.create_connection((info["ip"], info[f"{name}_port"]), timeout=10) as s:
            s.sendall(b"\xff" + b"\x00" * 8 + b"\x7f")
            greeting = b""
            while len(greeting) < 64:
                chunk = s.recv(64 - len(greeting))
                assert chunk, f"{name}: the kernel closed before its greeting"
                greeting += chunk
        assert greeting[12:32].rstrip(b"\x00") == b"CURVE", f"{name} greets with {greeting[12:32]!r}"
        assert greeting[32] == 1, f"{name} is not the CURVE server"


def _kernel_info_from(kc, url: str, serverkey: bytes | None, timeout_ms: int = 1500):
    """Send a signed kernel_info_request from a fresh DEALER; return the
    reply's frames, or None if it could not be sent or no reply came."""
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    # A DEALER's send waits for a peer; once the kernel has refused the
    # handshake there is none, and without a timeout the send would block
    # for good (it did, now and then, when the refusal came first).
    sock.sndtimeo = timeout_ms
    try:
        if serverkey is not None:
            pub, sec = zmq.curve_keypair()
            sock.curve_publickey, sock.curve_secretkey = pub, sec
            sock.curve_serverkey = serverkey
        sock.connect(url)
        try:
            kc.session.send(sock, "kernel_info_request", {})
        except zmq.Again:
            return None
        if sock.poll(timeout_ms):
            return sock.recv_multipart()
        return None
    finally:
        sock.close()


@pytest.mark.parametrize("peer", ["plaintext", "wrong server key"])
def test_refused_peer(curve_kernel, peer):
    km, kc = curve_kernel
    url = kc._make_url("shell")
    serverkey = None if peer == "plaintext" else zmq.curve_keypair()[0]
    assert _kernel_info_from(kc, url, serverkey) is None, f"a {peer} peer got a reply"
    # The kernel serves on, the right key gets through, also from a client
    # with a key pair of its own.
    assert km.is_alive()
    assert stdout(execute_ok(kc, 'fmt.Println("still here")')) == "still here\n"
    assert _kernel_info_from(kc, url, kc.curve_publickey, timeout_ms=10000) is not None
