"""The Jupyter debug protocol through jupyter_client, as JupyterLab's
debugger panel speaks it: debug_request/debug_reply on the control channel,
debug_event on iopub."""

from __future__ import annotations

import os
import time
from queue import Empty
from typing import Any

from kclient import TIMEOUT, control_reply, iopub_until_idle, shell_reply, stdout


class Debugger:
    """A DAP client over a kernel's control channel."""

    def __init__(self, kc):
        self.kc = kc
        self.seq = 0

    def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        self.seq += 1
        msg = self.kc.session.msg(
            "debug_request",
            {"type": "request", "seq": self.seq, "command": command, "arguments": arguments},
        )
        self.kc.control_channel.send(msg)
        reply = control_reply(self.kc, msg["header"]["msg_id"])
        assert reply["msg_type"] == "debug_reply", f"reply to {command} is {reply['msg_type']}"
        c = reply["content"]
        assert c.get("command") == command and c.get("request_seq") == self.seq, f"{command}: reply {c}"
        return c

    def ok(self, command: str, **arguments: Any) -> dict[str, Any]:
        c = self.request(command, **arguments)
        assert c["success"], f"{command} failed: {c.get('message')}"
        return c["body"]


def debug_event(kc, name: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """Return the next debug_event named name on iopub (other messages are skipped)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.01))
        except Empty:
            continue
        if msg["msg_type"] == "debug_event" and msg["content"].get("event") == name:
            return msg["content"]
    raise AssertionError(f"no {name} debug_event within {timeout} s")


def test_kernel_info_says_debugger(kernel, jupyter_env):
    _, kc = kernel
    reply = shell_reply(kc, kc.kernel_info())
    c = reply["content"]
    assert c.get("debugger") is True, f"kernel_info debugger = {c.get('debugger')!r}, want True"
    assert "debugger" in c.get("supported_features", []), f"supported_features = {c.get('supported_features')!r}"
    assert jupyter_env.get("metadata", {}).get("debugger") is True, f"kernelspec metadata = {jupyter_env.get('metadata')!r}"


def test_breakpoint_stack_variables_continue(kernel):
    _, kc = kernel
    dbg = Debugger(kc)
    dbg.ok("initialize", clientID="jupyterlab", adapterID="gnnlab", pathFormat="path",
           linesStartAt1=True, columnsStartAt1=True)
    dbg.ok("attach")
    info = dbg.ok("debugInfo")
    assert info["isStarted"] is True, f"debugInfo after attach: {info}"
    assert info["hashMethod"] == "Murmur2" and info["tmpFileSuffix"] == ".go", f"debugInfo: {info}"

    # A session variable from an earlier cell, run before any breakpoint.
    setup_id = kc.execute('import "fmt"\ntotal := 40')
    assert shell_reply(kc, setup_id)["content"]["status"] == "ok"
    iopub_until_idle(kc, setup_id)

    cell = 'x := total + 1\ny := x * 2\nfmt.Println("sum", x, y)'
    path = dbg.ok("dumpCell", code=cell)["sourcePath"]
    assert path.startswith(info["tmpFilePrefix"]) and path.endswith(".go"), f"dumpCell path {path!r}"
    with open(path, encoding="utf-8") as f:
        assert f.read() == cell, "dumpCell wrote other text than the cell"
    assert os.path.basename(path)[:-3].isdigit(), f"dumpCell path {path!r} is not named by a hash"
    bps = dbg.ok("setBreakpoints", source={"path": path}, breakpoints=[{"line": 2}], sourceModified=False)
    assert [b["line"] for b in bps["breakpoints"]] == [2] and all(b["verified"] for b in bps["breakpoints"]), bps
    dbg.ok("configurationDone")
    listed = dbg.ok("debugInfo")["breakpoints"]
    assert listed == [{"source": path, "breakpoints": [{"line": 2}]}], f"debugInfo breakpoints {listed}"

    msg_id = kc.execute(cell)
    stopped = debug_event(kc, "stopped")
    assert stopped["body"]["reason"] == "breakpoint", f"stopped: {stopped}"
    thread = stopped["body"]["threadId"]
    assert dbg.ok("debugInfo")["stoppedThreads"] == [thread]
    assert [t["id"] for t in dbg.ok("threads")["threads"]] == [thread]

    frames = dbg.ok("stackTrace", threadId=thread)["stackFrames"]
    assert frames, "stackTrace has no frames"
    top = frames[0]
    assert top["line"] == 2 and top["source"]["path"] == path, f"top frame {top}, want line 2 of {path}"

    scopes = dbg.ok("scopes", frameId=top["id"])["scopes"]
    by_name = {s["name"]: s for s in scopes}
    assert "Globals" in by_name, f"scopes {scopes}"
    variables = dbg.ok("variables", variablesReference=by_name["Globals"]["variablesReference"])["variables"]
    values = {v["name"]: v["value"] for v in variables}
    assert values.get("total") == "40", f"Globals {variables}, want total = 40"
    assert values.get("x") == "41", f"Globals {variables}, want x = 41 (line 1 ran)"
    inspected = {v["name"]: v["value"] for v in dbg.ok("inspectVariables")["variables"]}
    assert inspected.get("total") == "40", f"inspectVariables {inspected}"

    # Step over line 2, then continue: the cell finishes with its output.
    dbg.ok("next", threadId=thread)
    stopped = debug_event(kc, "stopped")
    assert stopped["body"]["reason"] == "step", f"after next: {stopped}"
    frames = dbg.ok("stackTrace", threadId=thread)["stackFrames"]
    assert frames[0]["line"] == 3, f"after next the cell is at {frames[0]}, want line 3"
    dbg.ok("continue", threadId=thread)
    reply = shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "ok", f"the debugged cell: {reply['content']}"
    out = iopub_until_idle(kc, msg_id)
    assert stdout(out) == "sum 41 82\n", f"stdout {stdout(out)!r}"

    dbg.ok("disconnect", restart=False, terminateDebuggee=True)
    assert dbg.ok("debugInfo")["isStarted"] is False
    # Off again: the same cell runs through.
    msg_id = kc.execute(cell)
    assert shell_reply(kc, msg_id)["content"]["status"] == "ok"
    assert stdout(iopub_until_idle(kc, msg_id)) == "sum 41 82\n"


def test_interrupt_stopped_cell(kernel):
    km, kc = kernel
    dbg = Debugger(kc)
    dbg.ok("initialize", clientID="jupyterlab", adapterID="gnnlab")
    dbg.ok("attach")
    cell = 'import "fmt"\nfmt.Println("line 2 ran")\nfmt.Println("line 3 ran")'
    path = dbg.ok("dumpCell", code=cell)["sourcePath"]
    dbg.ok("setBreakpoints", source={"path": path}, breakpoints=[{"line": 2}])
    msg_id = kc.execute(cell)
    debug_event(kc, "stopped")
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "interrupted", reply["content"]
    out = iopub_until_idle(kc, msg_id)
    assert "ran" not in stdout(out), f"an interrupted stopped cell printed {stdout(out)!r}"
    assert dbg.ok("debugInfo")["stoppedThreads"] == []
    dbg.ok("disconnect")
    msg_id = kc.execute('fmt.Println("after")')
    assert shell_reply(kc, msg_id)["content"]["status"] == "ok"
    assert stdout(iopub_until_idle(kc, msg_id)) == "after\n"
