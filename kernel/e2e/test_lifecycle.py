"""The kernel's life beside its front end: it exits when the process named
by JPY_PARENT_PID dies, and `exit` in a console asks the front end to quit."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.connect import write_connection_file

import kernelenv
from kclient import TIMEOUT, control_reply, shell_reply

# The parent: a Python process that starts the kernel with JPY_PARENT_PID
# naming itself, prints the kernel's pid, and waits.
PARENT = r"""
import os, subprocess, sys
env = dict(os.environ, JPY_PARENT_PID=str(os.getpid()))
p = subprocess.Popen([sys.argv[1], "kernel", "--connection-file", sys.argv[2]], env=env)
print(p.pid, flush=True)
p.wait()
"""


def _gone(pid: int) -> bool:
    """A process that no longer exists or is a zombie nobody reaped yet."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _children(pid: int) -> list[int]:
    out = []
    for d in pathlib.Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text(encoding="ascii")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(d.name))
    return out


def test_parent_death_ends_kernel_and_worker(tmp_path: pathlib.Path) -> None:
    conn_file, _ = write_connection_file(str(tmp_path / "kernel.json"), key=os.urandom(16).hex().encode())
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(kernelenv.gnnlab_binary()), conn_file],
        stdout=subprocess.PIPE, text=True,
    )
    kernel_pid = int(parent.stdout.readline())
    kc = BlockingKernelClient(connection_file=conn_file)
    kc.load_connection_file()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=TIMEOUT)
        # A cell makes sure that the worker is up.
        msg_id = kc.execute("1 + 1")
        assert shell_reply(kc, msg_id)["content"]["status"] == "ok"
        workers = _children(kernel_pid)
        assert workers, "the kernel has no worker process"

        parent.send_signal(signal.SIGKILL)
        parent.wait()
        killed = time.monotonic()
        pids = [kernel_pid, *workers]
        while not all(_gone(p) for p in pids) and time.monotonic() - killed < 5:
            time.sleep(0.05)
        took = time.monotonic() - killed
        left = [p for p in pids if not _gone(p)]
        assert not left, f"processes {left} (kernel {kernel_pid}) still run {took:.1f} s after the parent died"
        assert took <= 2.0, f"the kernel and its worker took {took:.2f} s to exit, want <= 2 s"
    finally:
        kc.stop_channels()
        for p in [kernel_pid, *_children(kernel_pid)]:
            if not _gone(p):
                os.kill(p, signal.SIGKILL)


def test_exit_asks_the_console_to_quit(kernel) -> None:
    """jupyter console sends `exit` as code; IPython's answer is the
    ask_exit payload, on which the console quits and shuts the kernel down."""
    _, kc = kernel
    for code in ("exit", "quit()"):
        reply = shell_reply(kc, kc.execute(code))["content"]
        assert reply["status"] == "ok", reply
        assert reply["payload"] == [{"source": "ask_exit", "keepkernel": False}], reply


def test_usage_request(kernel) -> None:
    """jupyter-resource-usage asks the kernel on control, as of ipykernel 7."""
    km, kc = kernel
    shell_reply(kc, kc.execute("1 + 1"))
    msg = kc.session.msg("usage_request", {})
    kc.control_channel.send(msg)
    reply = control_reply(kc, msg["header"]["msg_id"])
    assert reply["msg_type"] == "usage_reply"
    c = reply["content"]
    assert c["pid"] == km.provisioner.process.pid
    assert c["cpu_count"] >= 1 and c["kernel_memory"] > 0, c
    assert c["host_virtual_memory"]["total"] > 0, c
