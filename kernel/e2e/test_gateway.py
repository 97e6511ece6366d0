"""Remote kernels: Jupyter Enterprise Gateway (from PyPI, in its own venv)
starts gnnlab through the gnnlab_distributed kernelspec, whose
DistributedProcessProxy runs `gnnlab kernel --response-address ...` on the
gateway's remote host, here localhost; the kernel reports its ports to the
gateway, encrypted. The tests drive the gateway's REST API (kernels,
interrupts) and websocket (cells) directly, and through jupyter_server
started with --gateway-url, the server JupyterLab's page talks to.

install/setup-gateway-venv.sh (run by `make test-e2e`) installs the
gateway. When it could not (no network) the test skips with its reason,
except under CI=true, where it fails.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Iterator

import pytest
import websocket  # websocket-client, a dependency of jupyter_server

import kernelenv
from kclient import TIMEOUT

GATEWAY_SPEC = "gnnlab_distributed"


def _gateway_venv() -> pathlib.Path:
    return pathlib.Path(os.environ.get("GNNLAB_GATEWAY_VENV") or kernelenv.REPO / ".venv-gateway")


def _gateway_program() -> pathlib.Path:
    venv = _gateway_venv()
    program = venv / "bin" / "jupyter-enterprisegateway"
    if program.exists():
        return program
    why = venv / ".gnnlab-gateway-unavailable"
    if why.exists() and os.environ.get("CI") != "true":
        pytest.skip(f"Jupyter Enterprise Gateway is not installed: {why.read_text().strip()}")
    pytest.fail(
        f"{program} not found: run install/setup-gateway-venv.sh (make test-e2e does)"
        + (f"; it reported: {why.read_text().strip()}" if why.exists() else "")
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running Jupyter server (Enterprise Gateway, or jupyter_server with
    --gateway-url) and a small client of its kernels API."""

    def __init__(self, url: str, proc: subprocess.Popen, log: pathlib.Path, token: str = "") -> None:
        self.url, self.proc, self.log, self.token = url, proc, log, token

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"} if self.token else {}

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=self.headers())
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
                raw = r.read()
                return r.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def kernel_pid(self, kernel_id: str) -> int:
        """The pid the gateway logged when it launched kernel_id."""
        m = re.search(rf"pid: (\d+), ID: {kernel_id}", self.log.read_text(errors="replace"))
        assert m, f"no launch of {kernel_id} in the gateway log {self.log}"
        return int(m.group(1))

    def tail(self) -> str:
        return f"{self.log.name} (last lines):\n" + "\n".join(self.log.read_text(errors="replace").splitlines()[-25:])

    def wait_ready(self) -> None:
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert self.proc.poll() is None, f"{self.log.name}: exited with {self.proc.returncode}\n{self.tail()}"
            try:
                if self.request("GET", "/api/kernelspecs")[0] == 200:
                    return
            except OSError:
                pass
            assert time.monotonic() < deadline, f"no answer within {TIMEOUT} s\n{self.tail()}"
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    program = _gateway_program()
    root = tmp_path_factory.mktemp("gateway")
    prefix = root / "prefix"
    subprocess.run(
        [str(kernelenv.gnnlab_binary()), "install", "--gateway", "--prefix", str(prefix)],
        check=True, timeout=60, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
    )
    port, response_port = _free_port(), _free_port()
    env = dict(os.environ, **kernelenv.isolated_env(root, prefix))
    env.update(EG_RESPONSE_IP="127.0.0.1", EG_RESPONSE_PORT=str(response_port), EG_KERNEL_LOG_DIR=str(root))
    log = root / "gateway.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(program), "--ip=127.0.0.1", f"--port={port}", "--port_retries=0", "--debug"],
            env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )
    gw = Server(f"http://127.0.0.1:{port}", proc, log)
    try:
        gw.wait_ready()
        yield gw
    finally:
        gw.stop()


@pytest.fixture(scope="module")
def lab_server(gateway: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """jupyter_server from .venv, as `jupyter lab --gateway-url` runs it:
    its kernels are the gateway's."""
    root = tmp_path_factory.mktemp("labserver")
    port, token = _free_port(), uuid.uuid4().hex
    env = dict(os.environ, **kernelenv.isolated_env(root, root / "prefix"))
    # jupyter_server passes the KERNEL_ variables of its environment to the
    # gateway with each new kernel.
    env["KERNEL_USERNAME"] = "gnnlab-test"
    log = root / "jupyter-server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", "--ip=127.0.0.1",
             f"--port={port}", "--port_retries=0", f"--IdentityProvider.token={token}",
             f"--ServerApp.root_dir={root}", f"--gateway-url={gateway.url}"],
            env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )
    srv = Server(f"http://127.0.0.1:{port}", proc, log, token)
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


class Channels:
    """A kernel's websocket at the gateway: Jupyter messages as JSON, each
    with the channel it belongs to."""

    def __init__(self, srv: Server, kernel_id: str) -> None:
        self.ws = websocket.create_connection(
            srv.url.replace("http", "ws", 1) + f"/api/kernels/{kernel_id}/channels",
            timeout=TIMEOUT, header=srv.headers(),
        )
        self.session = uuid.uuid4().hex

    def send(self, channel: str, msg_type: str, content: dict) -> str:
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "channel": channel,
            "header": {"msg_id": msg_id, "msg_type": msg_type, "session": self.session,
                       "username": "gnnlab-test", "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "content": content,
        }))
        return msg_id

    def execute(self, code: str) -> str:
        return self.send("shell", "execute_request", {
            "code": code, "silent": False, "store_history": True,
            "user_expressions": {}, "allow_stdin": False, "stop_on_error": True,
        })

    def until(self, msg_id: str, done, timeout: float = TIMEOUT) -> list[dict]:
        """Collect msg_id's messages until done(messages so far) is true."""
        deadline = time.monotonic() + timeout
        got: list[dict] = []
        while not done(got):
            left = deadline - time.monotonic()
            assert left > 0, f"timed out waiting on {msg_id}; got {[(m['msg_type'], m['content']) for m in got]}"
            self.ws.settimeout(left)
            msg = json.loads(self.ws.recv())
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                got.append(msg)
        return got

    def run(self, code: str, timeout: float = TIMEOUT) -> tuple[dict, str]:
        """Run a cell; return its execute_reply content and its stdout."""
        msgs = self.until(self.execute(code), _reply_and_idle, timeout)
        return _reply(msgs), _stdout(msgs)

    def close(self) -> None:
        self.ws.close()


def _gone(pid: int) -> bool:
    """A process that no longer exists or is a zombie nobody reaped yet."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _reply(msgs: list[dict]) -> dict:
    return next(m["content"] for m in msgs if m["msg_type"] == "execute_reply")


def _idle(m: dict) -> bool:
    return m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"


def _reply_and_idle(msgs: list[dict]) -> bool:
    return any(m["msg_type"] == "execute_reply" for m in msgs) and any(_idle(m) for m in msgs)


def _stdout(msgs: list[dict]) -> str:
    return "".join(
        m["content"]["text"] for m in msgs if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
    )


@pytest.fixture(params=["gateway", "jupyter_server --gateway-url"])
def server(request: pytest.FixtureRequest) -> Server:
    """The gateway's API directly, and through jupyter_server."""
    return request.getfixturevalue("gateway" if request.param == "gateway" else "lab_server")


def test_gateway_lists_the_gnnlab_kernelspec(server: Server) -> None:
    status, body = server.request("GET", "/api/kernelspecs")
    assert status == 200
    spec = body["kernelspecs"][GATEWAY_SPEC]["spec"]
    assert spec["language"] == "go" and spec["interrupt_mode"] == "message"
    assert "{response_address}" in spec["argv"]


def test_cell_and_interrupt_through_the_gateway(server: Server, gateway: Server) -> None:
    # The gateway refuses kernels for root (its unauthorized_users) unless
    # the request names the user, as jupyter_server does from KERNEL_USERNAME.
    status, body = server.request(
        "POST", "/api/kernels", {"name": GATEWAY_SPEC, "env": {"KERNEL_USERNAME": "gnnlab-test"}}
    )
    assert status == 201, f"POST /api/kernels: {status} {body}\n{server.tail()}"
    kernel_id = body["id"]
    pid = gateway.kernel_pid(kernel_id)
    ch = None
    try:
        ch = Channels(server, kernel_id)
        reply, out = ch.run('kept := 6 * 7\nfmt.Println("through the gateway:", kept)')
        assert reply["status"] == "ok", reply
        assert out == "through the gateway: 42\n"

        # A cell that would run for a minute, interrupted through the REST API.
        msg_id = ch.execute('fmt.Println("sleeping")\ntime.Sleep(time.Minute)')
        ch.until(msg_id, lambda ms: "sleeping" in _stdout(ms))
        status, body = server.request("POST", f"/api/kernels/{kernel_id}/interrupt")
        assert status == 204, f"interrupt: {status} {body}"
        msgs = ch.until(msg_id, _reply_and_idle)
        reply = _reply(msgs)
        assert reply["status"] == "error", reply
        errs = [m["content"] for m in msgs if m["msg_type"] == "error"]
        assert [e["ename"] for e in errs] == ["interrupted"], errs

        # The same kernel, with its session, runs the next cell.
        reply, out = ch.run('fmt.Println("after the interrupt:", kept+1)')
        assert reply["status"] == "ok", reply
        assert out == "after the interrupt: 43\n"
        status, body = server.request("GET", f"/api/kernels/{kernel_id}")
        assert status == 200 and body["id"] == kernel_id, body
    finally:
        if ch is not None:
            ch.close()
        status, body = server.request("DELETE", f"/api/kernels/{kernel_id}")
    assert status == 204, f"DELETE kernel: {status} {body}\n{server.tail()}"
    assert gateway.request("GET", f"/api/kernels/{kernel_id}")[0] == 404
    deadline = time.monotonic() + TIMEOUT
    while not _gone(pid):
        assert time.monotonic() < deadline, f"gnnlab kernel {pid} still runs after DELETE"
        time.sleep(0.1)
