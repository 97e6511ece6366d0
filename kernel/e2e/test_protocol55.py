"""Protocol 5.5 and later through real Jupyter clients: the version the
kernel and its kernelspec advertise, iopub_welcome on the XPUB socket, and
kernel subshells (JEP 91)."""

from __future__ import annotations

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
