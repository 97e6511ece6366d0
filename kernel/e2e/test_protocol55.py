"""Protocol 5.5 and later through real Jupyter clients: the version the
kernel and its kernelspec advertise, iopub_welcome on the XPUB socket, and
kernel subshells (JEP 91)."""

from __future__ import annotations

import time

import zmq

from kclient import TIMEOUT, control_reply


def test_versions(kernel, jupyter_env):
    _, kc = kernel
    msg_id = kc.kernel_info()
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["content"]["protocol_version"] == "5.5"
    assert reply["header"]["version"] == "5.5"
    assert jupyter_env["kernel_protocol_version"] == "5.5"


def _welcome(kc, topic: bytes):
    """Subscribe a fresh SUB socket to topic; return the frames of the
    first message it receives, deserialized by jupyter_client's Session."""
    ctx = zmq.Context.instance()
    sub = ctx.socket(zmq.SUB)
    sub.linger = 0
    try:
        sub.connect(kc._make_url("iopub"))
        sub.setsockopt(zmq.SUBSCRIBE, topic)
        assert sub.poll(int(TIMEOUT * 1000)), f"no message after subscribing to {topic!r}"
        frames = sub.recv_multipart()
        idents, msg = kc.session.feed_identities(frames)
        return idents, kc.session.deserialize(msg)  # checks the HMAC
    finally:
        sub.close()


def test_iopub_welcome(kernel):
    _, kc = kernel
    idents, msg = _welcome(kc, b"")
    assert msg["msg_type"] == "iopub_welcome"
    assert msg["content"] == {"subscription": ""}
    assert msg["parent_header"] == {}
    assert idents == []


def test_iopub_welcome_topic(kernel):
    """A subscription to a topic is welcomed under that topic, so the
    subscriber's filter lets it through."""
    _, kc = kernel
    idents, msg = _welcome(kc, b"kernel.")
    assert msg["msg_type"] == "iopub_welcome"
    assert msg["content"] == {"subscription": "kernel."}
    assert idents == [b"kernel."]


def _control(kc, msg_type, content=None):
    msg = kc.session.msg(msg_type, content or {})
    kc.control_channel.send(msg)
    return control_reply(kc, msg["header"]["msg_id"])["content"]


def _shell_to(kc, subshell_id, msg_type, content):
    msg = kc.session.msg(msg_type, content)
    msg["header"]["subshell_id"] = subshell_id
    kc.shell_channel.send(msg)
    return msg["header"]["msg_id"]


def test_subshells(kernel):
    """create, list and delete subshells on control; a subshell's
    kernel_info answers while the main shell's cell runs, and its cell runs
    after that cell, in the same session."""
    from kclient import execute_ok, shell_reply

    _, kc = kernel
    info = kc.kernel_info(reply=True)["content"]
    assert "kernel subshells" in info["supported_features"]
    created = _control(kc, "create_subshell_request")
    assert created["status"] == "ok"
    sid = created["subshell_id"]
    assert _control(kc, "list_subshell_request") == {"status": "ok", "subshell_id": [sid]}

    execute_ok(kc, 'import "time"')
    main = kc.execute('time.Sleep(2 * time.Second); x := 7; _ = x')
    time.sleep(0.3)
    t0 = time.monotonic()
    ki = _shell_to(kc, sid, "kernel_info_request", {})
    assert shell_reply(kc, ki)["content"]["status"] == "ok"
    waited = time.monotonic() - t0
    cell = _shell_to(kc, sid, "execute_request", {"code": "x * 6", "silent": False, "store_history": True,
                                                  "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
    assert shell_reply(kc, main)["content"]["status"] == "ok"
    reply = shell_reply(kc, cell)
    assert reply["content"]["status"] == "ok", reply["content"]
    assert reply["parent_header"].get("subshell_id") == sid
    print(f"\nkernel_info on a subshell during a 2 s cell: answered in {1000 * waited:.1f} ms")

    assert _control(kc, "delete_subshell_request", {"subshell_id": sid}) == {"status": "ok"}
    assert _control(kc, "list_subshell_request") == {"status": "ok", "subshell_id": []}
    gone = _control(kc, "delete_subshell_request", {"subshell_id": sid})
    assert gone["status"] == "error"
