"""The kernel handshake pattern (JEP 66): the launcher gives the kernel a
registration socket instead of ports; the kernel binds ports of its own,
reports them there in a signed handshake_request, and, once acknowledged,
serves them and writes them into its connection file.

jupyter_client has no launcher side of the pattern yet (its provisioner
still picks the ports), so the registration socket here is a pyzmq REP
socket with jupyter_client's Session signing and checking the messages,
as the JEP describes it.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
from typing import Iterator

import pytest
import zmq
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.session import Session

import kernelenv
from kclient import TIMEOUT, control_reply, execute_ok, stdout

PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


class Registrar:
    """A launcher's registration socket: a REP socket on a free port."""

    def __init__(self, key: bytes) -> None:
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.REP)
        self.sock.linger = 0
        self.port = self.sock.bind_to_random_port("tcp://127.0.0.1")
        self.session = Session(key=key, signature_scheme="hmac-sha256")

    def receive(self, timeout: float = TIMEOUT) -> dict:
        """Return the next request, verified and parsed."""
        assert self.sock.poll(timeout * 1000), "no handshake_request from the kernel"
        frames = self.sock.recv_multipart()
        _, msg = self.session.feed_identities(frames)
        return self.session.deserialize(msg)  # raises on a bad signature

    def answer(self, content: dict) -> None:
        self.session.send(self.sock, "handshake_reply", content)

    def close(self) -> None:
        self.sock.close()
        self.ctx.term()


@pytest.fixture
def registrar() -> Iterator[Registrar]:
    r = Registrar(os.urandom(16).hex().encode())
    yield r
    r.close()


def _registration_file(path: pathlib.Path, r: Registrar, with_port: bool) -> pathlib.Path:
    info = {
        "transport": "tcp",
        "ip": "127.0.0.1",
        "key": r.session.key.decode(),
        "signature_scheme": "hmac-sha256",
        "kernel_name": kernelenv.KERNEL_NAME,
    }
    if with_port:
        info["registration_port"] = r.port
    path.write_text(json.dumps(info), encoding="utf-8")
    return path


def _start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [str(kernelenv.gnnlab_binary()), "kernel", *args],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )


def _stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.kill()
    _, err = proc.communicate(timeout=TIMEOUT)
    return err


@pytest.mark.parametrize("how", ["flag", "connection file"])
def test_kernel_registers_its_own_ports(tmp_path: pathlib.Path, registrar: Registrar, how: str) -> None:
    conn_file = _registration_file(tmp_path / "kernel.json", registrar, with_port=(how == "connection file"))
    args = ["--connection-file", str(conn_file)]
    if how == "flag":
        args += ["--handshake", f"tcp://127.0.0.1:{registrar.port}"]
    proc = _start(args)
    kc = None
    try:
        req = registrar.receive()
        assert req["header"]["msg_type"] == "handshake_request"
        ports = [req["content"][p] for p in PORTS]
        assert all(p > 0 for p in ports) and len(set(ports)) == 5, req["content"]
        assert req["content"]["transport"] == "tcp" and req["content"]["ip"] == "127.0.0.1"
        assert "key" not in req["content"]
        registrar.answer({"status": "ok"})

        # The acknowledged kernel serves the ports it reported...
        kc = BlockingKernelClient()
        kc.load_connection_info({
            "transport": "tcp", "ip": "127.0.0.1", "key": registrar.session.key,
            "signature_scheme": "hmac-sha256", **{p: req["content"][p] for p in PORTS},
        })
        kc.start_channels()
        kc.wait_for_ready(timeout=TIMEOUT)
        out = execute_ok(kc, 'fmt.Println("registered", 6*7)')
        assert stdout(out) == "registered 42\n"

        # ...and has written them into its connection file for other clients.
        written = json.loads(conn_file.read_text(encoding="utf-8"))
        assert {p: written[p] for p in PORTS} == {p: req["content"][p] for p in PORTS}
        assert "registration_port" not in written
        assert written["key"] == registrar.session.key.decode()

        reply = control_reply(kc, kc.shutdown())
        assert reply["content"]["status"] == "ok"
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        if kc is not None:
            kc.stop_channels()
        _stop(proc)


def test_refused_registration_ends_the_kernel(tmp_path: pathlib.Path, registrar: Registrar) -> None:
    conn_file = _registration_file(tmp_path / "kernel.json", registrar, with_port=True)
    proc = _start(["--connection-file", str(conn_file)])
    try:
        assert registrar.receive()["header"]["msg_type"] == "handshake_request"
        registrar.answer({"status": "error", "error": "no room for another kernel"})
        assert proc.wait(timeout=TIMEOUT) == 1
    finally:
        err = _stop(proc)
    assert "refused the registration" in err and "no room for another kernel" in err, err
