"""A cell cannot cost the user their connection: interrupts, worker crashes
and %replay, through jupyter_client."""

from __future__ import annotations

import signal
import time
from queue import Empty

import pytest

from kclient import (
    TIMEOUT,
    control_reply,
    describe,
    errors,
    execute,
    execute_ok,
    iopub_until_idle,
    result_text,
    shell_reply,
)

# Crashing cells get longer: a stack overflow first fills the worker's stack.
CRASH_TIMEOUT = 90.0


def _wait_busy(kc, msg_id: str) -> None:
    """Wait until the kernel has published busy for msg_id."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        try:
            msg = kc.get_iopub_msg(timeout=0.2)
        except Empty:
            continue
        if (
            msg["parent_header"].get("msg_id") == msg_id
            and msg["msg_type"] == "status"
            and msg["content"]["execution_state"] == "busy"
        ):
            return
    raise AssertionError(f"no busy status for {msg_id}")


def _error_text(err: dict) -> str:
    c = err["content"]
    return " ".join([c["ename"], c["evalue"], *c["traceback"]]).lower()


def _send_interrupt_message(km, kc) -> None:
    msg = kc.session.msg("interrupt_request", content={})
    kc.control_channel.send(msg)
    reply = control_reply(kc, msg["header"]["msg_id"])
    assert reply["content"]["status"] == "ok", f"interrupt_reply {reply['content']}"


def _send_sigint(km, kc) -> None:
    # What jupyter_client does for interrupt_mode "signal": SIGINT to the
    # kernel's process group.
    km.signal_kernel(signal.SIGINT)


@pytest.mark.parametrize("how", [_send_interrupt_message, _send_sigint], ids=["interrupt_request", "SIGINT"])
def test_interrupt_endless_loop(kernel, how):
    km, kc = kernel
    execute_ok(kc, "kept := 7")
    msg_id = kc.execute("for {\n}")
    _wait_busy(kc, msg_id)
    time.sleep(0.3)  # let the loop start; the test holds either way
    how(km, kc)
    reply = shell_reply(kc, msg_id)
    out = iopub_until_idle(kc, msg_id)
    assert reply["content"]["status"] == "error", f"interrupted cell reply {reply['content']}"
    errs = errors(out)
    assert len(errs) == 1, f"error messages = {len(errs)}, want 1: {describe(out)}"
    assert errs[0]["content"]["ename"] == "interrupted", f"ename = {errs[0]['content']['ename']!r}, want 'interrupted'"
    # The session keeps its state.
    out = execute_ok(kc, "kept + 1")
    assert result_text(out) == "8", f"after interrupt, kept + 1 = {result_text(out)!r}, want '8'"


CRASHES = [
    pytest.param('import "os"\nos.Exit(3)', ("exit", "3"), id="os.Exit"),
    pytest.param(
        'import "time"\ngo func() { panic("boom") }()\ntime.Sleep(20 * time.Second)',
        ("panic", "boom"),
        id="goroutine-panic",
    ),
    pytest.param(
        "func down(n int) int { return down(n+1) + 1 }\ndown(0)",
        ("stack overflow",),
        id="stack-overflow",
    ),
]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("code,words", CRASHES)
def test_worker_crash_recovery(kernel, code, words):
    _, kc = kernel
    execute_ok(kc, "kept := 41")

    reply, out = execute(kc, code, timeout=CRASH_TIMEOUT)
    assert reply["content"]["status"] == "error", f"crashing cell reply {reply['content']}"
    crash_count = reply["content"]["execution_count"]
    errs = errors(out)
    assert len(errs) == 1, f"error messages = {len(errs)}, want exactly 1: {describe(out)}"
    text = _error_text(errs[0])
    for w in words:
        assert w in text, f"crash error {errs[0]['content']} does not name the cause ({w!r})"

    # A fresh worker answers, and the execution count goes on.
    reply, out = execute(kc, "1 + 1")
    assert reply["content"]["status"] == "ok", f"cell after crash: {reply['content']} {describe(out)}"
    assert reply["content"]["execution_count"] == crash_count + 1, (
        f"execution_count after crash = {reply['content']['execution_count']}, want {crash_count + 1}"
    )
    assert result_text(out) == "2", f"1 + 1 after crash = {result_text(out)!r}, want '2'"

    # %replay brings back what the crashed worker had defined.
    execute_ok(kc, "%replay", timeout=CRASH_TIMEOUT)
    out = execute_ok(kc, "kept + 1")
    assert result_text(out) == "42", f"after %replay, kept + 1 = {result_text(out)!r}, want '42'"
