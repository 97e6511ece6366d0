"""Small helpers over jupyter_client for the end-to-end tests.

Every wait here has a deadline: a silent kernel makes a test fail with a
message saying what it waited for, never hang.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient

# TIMEOUT bounds each blocking wait for one reply or one cell's output.
TIMEOUT = 30.0


class KernelTimeout(AssertionError):
    """The kernel did not send what a test waited for in time."""


def _remaining(deadline: float, what: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise KernelTimeout(f"timed out waiting for {what}")
    return left


def shell_reply(kc: BlockingKernelClient, msg_id: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """Return the shell reply whose parent is msg_id, skipping others."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            msg = kc.get_shell_msg(timeout=_remaining(deadline, f"shell reply to {msg_id}"))
        except Empty:
            continue
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg


def control_reply(kc: BlockingKernelClient, msg_id: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """Return the control reply whose parent is msg_id, skipping others."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            msg = kc.control_channel.get_msg(timeout=_remaining(deadline, f"control reply to {msg_id}"))
        except Empty:
            continue
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg


def iopub_until_idle(
    kc: BlockingKernelClient, msg_id: str, timeout: float = TIMEOUT
) -> list[dict[str, Any]]:
    """Return the iopub messages that msg_id caused, up to its idle status.

    The busy/idle status messages and execute_input are left out; what is left
    is the cell's output as a frontend would render it.
    """
    deadline = time.monotonic() + timeout
    out = []
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=_remaining(deadline, f"idle status after {msg_id}"))
        except Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status":
            if msg["content"]["execution_state"] == "idle":
                return out
            continue
        if kind != "execute_input":
            out.append(msg)


def execute(
    kc: BlockingKernelClient,
    code: str,
    timeout: float = TIMEOUT,
    **kwargs: Any,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run one cell; return its execute_reply and its iopub output."""
    msg_id = kc.execute(code, **kwargs)
    reply = shell_reply(kc, msg_id, timeout)
    return reply, iopub_until_idle(kc, msg_id, timeout)


def execute_ok(kc: BlockingKernelClient, code: str, **kwargs: Any) -> list[dict[str, Any]]:
    """Run one cell that must succeed; return its iopub output."""
    reply, out = execute(kc, code, **kwargs)
    assert reply["content"]["status"] == "ok", (
        f"execute({code!r}) status = {reply['content']['status']!r}, want 'ok'; "
        f"reply {reply['content']}, output {describe(out)}"
    )
    return out


def stdout(out: list[dict[str, Any]]) -> str:
    """Return the text of the stdout stream messages in out."""
    return "".join(
        m["content"]["text"] for m in out if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
    )


def result_text(out: list[dict[str, Any]]) -> str | None:
    """Return the text/plain of the execute_result in out, or None."""
    for m in out:
        if m["msg_type"] == "execute_result":
            return m["content"]["data"].get("text/plain")
    return None


def errors(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the error messages in out."""
    return [m for m in out if m["msg_type"] == "error"]


def describe(out: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """Return a short, readable form of iopub messages for assertion texts."""
    return [(m["msg_type"], m["content"]) for m in out]
