"""The start-up handshake of protocol 5.6: the launcher gives the kernel a
registration file (kernel_id, registration_ip, registration_port, key);
the kernel binds ports of its own and reports them in a minimal signed
message (delimiter, signature, content) on a DEALER socket; the service
answers with a signed minimal ACK.

jupyter_client 8.10 documents the handshake but has no registration
service yet, so the service here is a pyzmq ROUTER socket that signs and
checks with jupyter_client's Session (its HMAC over the content frame).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import uuid

import zmq
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.session import Session

import kernelenv
from kclient import TIMEOUT, control_reply, execute_ok, stdout

PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


def test_registration_file_handshake(tmp_path: pathlib.Path) -> None:
    key = os.urandom(16).hex().encode()
    session = Session(key=key, signature_scheme="hmac-sha256")
    ctx = zmq.Context()
    service = ctx.socket(zmq.ROUTER)
    service.linger = 0
    port = service.bind_to_random_port("tcp://127.0.0.1")
    kernel_id = str(uuid.uuid4())
    reg_file = tmp_path / "registration.json"
    registration = {
        "kernel_id": kernel_id, "transport": "tcp", "registration_ip": "127.0.0.1",
        "registration_port": port, "signature_scheme": "hmac-sha256", "key": key.decode(),
    }
    reg_file.write_text(json.dumps(registration), encoding="utf-8")
    proc = subprocess.Popen(
        [str(kernelenv.gnnlab_binary()), "kernel", "--connection-file", str(reg_file)],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    kc = None
    try:
        assert service.poll(TIMEOUT * 1000), "no registration from the kernel"
        frames = service.recv_multipart()
        ident, delim, sig, content = frames  # a minimal message: one content frame
        assert delim == b"<IDS|MSG>"
        assert sig == session.sign([content]), "the registration's signature does not verify"
        info = json.loads(content)
        assert info["kernel_id"] == kernel_id
        ports = {p: int(info[p]) for p in PORTS}
        assert all(p > 0 for p in ports.values()) and len(set(ports.values())) == 5, info
        ack = json.dumps({"status": "ok"}).encode()
        service.send_multipart([ident, b"<IDS|MSG>", session.sign([ack]), ack])

        kc = BlockingKernelClient()
        kc.load_connection_info({"transport": "tcp", "ip": "127.0.0.1", "key": key,
                                 "signature_scheme": "hmac-sha256", **ports})
        kc.start_channels()
        kc.wait_for_ready(timeout=TIMEOUT)
        assert stdout(execute_ok(kc, 'fmt.Println("registered", 6*7)')) == "registered 42\n"
        # The registration file stays as the launcher wrote it.
        assert json.loads(reg_file.read_text(encoding="utf-8")) == registration
        assert control_reply(kc, kc.shutdown())["content"]["status"] == "ok"
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        if kc is not None:
            kc.stop_channels()
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=TIMEOUT)
        service.close()
        ctx.term()


def test_forged_ack_ends_the_kernel(tmp_path: pathlib.Path) -> None:
    """An ACK signed with another key is refused: the kernel exits 1."""
    key = os.urandom(16).hex().encode()
    ctx = zmq.Context()
    service = ctx.socket(zmq.ROUTER)
    service.linger = 0
    port = service.bind_to_random_port("tcp://127.0.0.1")
    reg_file = tmp_path / "registration.json"
    reg_file.write_text(json.dumps({
        "kernel_id": "k1", "transport": "tcp", "registration_ip": "127.0.0.1",
        "registration_port": port, "signature_scheme": "hmac-sha256", "key": key.decode(),
    }), encoding="utf-8")
    proc = subprocess.Popen(
        [str(kernelenv.gnnlab_binary()), "kernel", "--connection-file", str(reg_file)],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert service.poll(TIMEOUT * 1000), "no registration from the kernel"
        ident = service.recv_multipart()[0]
        forged = Session(key=b"another key", signature_scheme="hmac-sha256")
        ack = b"{}"
        service.send_multipart([ident, b"<IDS|MSG>", forged.sign([ack]), ack])
        assert proc.wait(timeout=TIMEOUT) == 1
        _, err = proc.communicate(timeout=TIMEOUT)
        assert "registration ACK" in err and "signature" in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
        service.close()
        ctx.term()
