"""Protocol behaviour through jupyter_client: kernel_info, the kernelspec,
stop_on_error, signatures, shutdown and restart, persisted history."""

from __future__ import annotations

import json
import time
import uuid

import pytest
import zmq
from jupyter_client.manager import KernelManager
from jupyter_client.session import Session

import kernelenv
from conftest import start
from kclient import TIMEOUT, control_reply, execute, execute_ok, result_text, shell_reply


def test_kernelspec(jupyter_env):
    spec = jupyter_env
    checks = [
        ("display_name", spec.get("display_name"), "Go (gnnlab)"),
        ("language", spec.get("language"), "go"),
        ("interrupt_mode", spec.get("interrupt_mode"), "message"),
    ]
    for name, got, want in checks:
        assert got == want, f"kernel.json {name} = {got!r}, want {want!r}"
    assert "{connection_file}" in spec["argv"], f"kernel.json argv = {spec['argv']}, want {{connection_file}} in it"


def test_kernel_info(kernel):
    _, kc = kernel
    msg_id = kc.kernel_info()
    reply = shell_reply(kc, msg_id)
    c = reply["content"]
    assert c["status"] == "ok", f"kernel_info status = {c['status']!r}, want 'ok'"
    major, minor = (int(p) for p in c["protocol_version"].split(".")[:2])
    assert (major, minor) >= (5, 3), f"protocol_version = {c['protocol_version']!r}, want >= 5.3"
    assert reply["header"]["version"] == c["protocol_version"], (
        f"header version = {reply['header']['version']!r}, want the advertised {c['protocol_version']!r}"
    )
    li = c["language_info"]
    want = {
        "name": "go",
        "mimetype": "text/x-go",
        "file_extension": ".go",
        "pygments_lexer": "go",
        "codemirror_mode": "go",
    }
    for k, v in want.items():
        assert li.get(k) == v, f"language_info[{k!r}] = {li.get(k)!r}, want {v!r}"
    assert li.get("version"), f"language_info version = {li.get('version')!r}, want the Go version"
    assert c.get("implementation") == "gnnlab", f"implementation = {c.get('implementation')!r}, want 'gnnlab'"
    assert c.get("banner"), "banner is empty"
    links = c.get("help_links")
    assert links and all("text" in h and "url" in h for h in links), f"help_links = {links!r}"


def test_kernel_info_on_control(kernel):
    # Control requests are answered on control: a reply on shell would leave
    # a client that waits on control hanging.
    _, kc = kernel
    msg = kc.session.msg("kernel_info_request")
    kc.control_channel.send(msg)
    reply = control_reply(kc, msg["header"]["msg_id"])
    assert reply["msg_type"] == "kernel_info_reply", f"control reply type = {reply['msg_type']!r}"


def test_execution_count_and_silent(kernel):
    _, kc = kernel
    counts = []
    for code in ["a := 1", "a + 1"]:
        reply, _ = execute(kc, code)
        counts.append(reply["content"]["execution_count"])
    assert counts[1] == counts[0] + 1, f"execution counts {counts}, want consecutive"
    # Silent cells publish nothing and do not count.
    reply, out = execute(kc, "a + 2", silent=True)
    assert reply["content"]["status"] == "ok", f"silent reply {reply['content']}"
    assert out == [], f"silent cell published {out}"
    reply, out = execute(kc, "a + 3")
    assert reply["content"]["execution_count"] == counts[1] + 1, (
        f"execution_count after a silent cell = {reply['content']['execution_count']}, want {counts[1] + 1}"
    )
    assert result_text(out) == "4", f"a + 3 = {result_text(out)!r}, want '4'"


def test_compile_error_single_error_message(kernel):
    _, kc = kernel
    reply, out = execute(kc, "y := undefinedName + 1")
    c = reply["content"]
    assert c["status"] == "error", f"status = {c['status']!r}, want 'error'"
    errs = [m for m in out if m["msg_type"] == "error"]
    assert len(errs) == 1, f"error messages = {len(errs)}, want 1: {out}"
    e = errs[0]["content"]
    assert "undefinedName" in e["evalue"], f"evalue = {e['evalue']!r}, want it to name undefinedName"
    assert e["traceback"], "traceback is empty"
    assert "yaegi" not in json.dumps(e), f"error shows yaegi internals: {e}"


def test_stop_on_error_aborts_queued(kernel):
    _, kc = kernel
    ids = [
        kc.execute('panic("first fails")', stop_on_error=True),
        kc.execute("b := 2"),
        kc.execute("b + 1"),
    ]
    statuses = [shell_reply(kc, i)["content"]["status"] for i in ids]
    assert statuses == ["error", "aborted", "aborted"], f"statuses = {statuses}, want error, aborted, aborted"
    # Executes sent after the failure has been handled run normally.
    out = execute_ok(kc, "c := 5\nc")
    assert result_text(out) == "5", f"after abort: c = {result_text(out)!r}, want '5'"


def test_no_stop_on_error_keeps_queue(kernel):
    _, kc = kernel
    ids = [
        kc.execute('panic("fails")', stop_on_error=False),
        kc.execute("d := 2\nd"),
    ]
    statuses = [shell_reply(kc, i)["content"]["status"] for i in ids]
    assert statuses == ["error", "ok"], f"statuses = {statuses}, want error, ok"


def _raw_shell(km: KernelManager) -> zmq.Socket:
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    sock.setsockopt(zmq.IDENTITY, uuid.uuid4().hex.encode())
    ci = km.get_connection_info()
    sock.connect(f"{ci['transport']}://{ci['ip']}:{ci['shell_port']}")
    return sock


def test_forged_signature_dropped(kernel):
    km, kc = kernel
    key = km.session.key
    wrong = Session(key=b"not-" + key, signature_scheme="hmac-sha256")
    right = Session(key=key, signature_scheme="hmac-sha256")
    sock = _raw_shell(km)
    try:
        forged = wrong.send(sock, "kernel_info_request")
        # The same message with no signature at all.
        unsigned = right.msg("kernel_info_request")
        parts = [
            right.pack(unsigned["header"]),
            right.pack(unsigned["parent_header"]),
            right.pack(unsigned["metadata"]),
            right.pack(unsigned["content"]),
        ]
        sock.send_multipart([b"<IDS|MSG>", b"", *parts])
        assert not sock.poll(timeout=1500), "kernel replied to a message with a bad or missing signature"
        good = right.send(sock, "kernel_info_request")
        assert sock.poll(timeout=TIMEOUT * 1000), "no reply to a correctly signed message after a forged one"
        _, msg = right.feed_identities(sock.recv_multipart())
        reply = right.deserialize(msg)  # verifies the kernel's signature too
        assert reply["parent_header"]["msg_id"] == good["header"]["msg_id"], (
            f"reply parent = {reply['parent_header']['msg_id']}, want {good['header']['msg_id']} "
            f"(not the forged {forged['header']['msg_id']})"
        )
        assert reply["msg_type"] == "kernel_info_reply", f"reply type = {reply['msg_type']!r}"
    finally:
        sock.close()
    # The regular client still works.
    execute_ok(kc, "e := 1")


def test_shutdown_without_restart(kernel):
    km, kc = kernel
    msg_id = kc.shutdown(restart=False)
    reply = control_reply(kc, msg_id)
    assert reply["content"].get("restart") is False, f"shutdown_reply {reply['content']}, want restart false"
    deadline = time.monotonic() + TIMEOUT
    while km.is_alive():
        assert time.monotonic() < deadline, "kernel process still alive after shutdown_request"
        time.sleep(0.05)


def test_shutdown_reply_restart_flag(kernel):
    km, kc = kernel
    msg_id = kc.shutdown(restart=True)
    reply = control_reply(kc, msg_id)
    assert reply["content"].get("restart") is True, f"shutdown_reply {reply['content']}, want restart true"


def test_restart_gives_fresh_state(kernel):
    km, kc = kernel
    execute_ok(kc, "before := 41")
    km.restart_kernel(now=False)
    kc.stop_channels()
    kc2 = km.client()
    kc2.start_channels()
    try:
        kc2.wait_for_ready(timeout=TIMEOUT)
        reply, out = execute(kc2, "before + 1")
        assert reply["content"]["status"] == "error", (
            f"after restart, `before + 1` status = {reply['content']['status']!r}, want 'error' (fresh state)"
        )
        out = execute_ok(kc2, "after := 1\nafter + 1")
        assert result_text(out) == "2", f"after restart: {result_text(out)!r}, want '2'"
    finally:
        kc2.stop_channels()


def test_history_persists_across_restart(history_dir):
    marker = f"histmark{uuid.uuid4().hex[:8]}"
    km = KernelManager(kernel_name=kernelenv.KERNEL_NAME)
    kc = start(km)
    try:
        execute_ok(kc, f"{marker} := 12345")
        execute_ok(kc, f"{marker} + 1")
        km.restart_kernel(now=False)
        kc.stop_channels()
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=TIMEOUT)

        msg_id = kc.history(hist_access_type="tail", n=10, output=False, raw=True)
        hist = shell_reply(kc, msg_id)["content"]["history"]
        sources = [h[2] for h in hist]
        assert f"{marker} := 12345" in sources, f"history tail after restart = {sources}, want the marker cell"

        msg_id = kc.history(hist_access_type="search", pattern=f"{marker}*", output=False, raw=True)
        found = [h[2] for h in shell_reply(kc, msg_id)["content"]["history"]]
        assert sorted(found) == sorted([f"{marker} := 12345", f"{marker} + 1"]), (
            f"history search {marker}* = {found}, want both marker cells"
        )
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_comm_info(kernel):
    _, kc = kernel
    msg_id = kc.comm_info()
    reply = shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "ok", f"comm_info_reply {reply['content']}"
    assert reply["content"]["comms"] == {}, f"comms = {reply['content']['comms']}, want none open"


@pytest.mark.parametrize(
    "code,status",
    [("x := 1", "complete"), ("func f() {", "incomplete"), ("x := )", "invalid")],
)
def test_is_complete(kernel, code, status):
    _, kc = kernel
    msg_id = kc.is_complete(code)
    reply = shell_reply(kc, msg_id)
    assert reply["content"]["status"] == status, f"is_complete({code!r}) = {reply['content']}, want {status!r}"
    if status == "incomplete":
        assert "indent" in reply["content"], f"is_complete({code!r}) gave no indent: {reply['content']}"


def test_complete_and_inspect_live_session(kernel):
    _, kc = kernel
    execute_ok(kc, "type point struct{ X, Y int }\nvar myPoint = point{1, 2}")
    code = "myPo"
    reply = shell_reply(kc, kc.complete(code))["content"]
    got = {code[: reply["cursor_start"]] + m + code[reply["cursor_end"] :] for m in reply["matches"]}
    assert "myPoint" in got, f"complete({code!r}) = {reply}, want myPoint"
    code = "myPoint."
    reply = shell_reply(kc, kc.complete(code))["content"]
    got = {code[: reply["cursor_start"]] + m + code[reply["cursor_end"] :] for m in reply["matches"]}
    assert {"myPoint.X", "myPoint.Y"} <= got, f"complete({code!r}) = {reply}, want the fields X and Y"
    code = 'import "strings"\nstrings.ToUpper'
    reply = shell_reply(kc, kc.inspect(code, len(code)))["content"]
    assert reply["found"], f"inspect(strings.ToUpper) = {reply}, want found"
    text = reply["data"].get("text/plain", "")
    assert "func ToUpper(s string) string" in text, f"inspect(strings.ToUpper) text = {text!r}, want the signature"
