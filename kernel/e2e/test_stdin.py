"""os.Stdin in a cell reads through Jupyter's stdin channel; output streams
while a cell runs."""

from __future__ import annotations

from queue import Empty

from kclient import TIMEOUT, errors, iopub_until_idle, shell_reply, stdout

READ_NAME = """import "fmt"
var name string
if _, err := fmt.Scanln(&name); err != nil {
	panic(err)
}
fmt.Println("hello,", name)
"""


def test_stdin_allowed(kernel):
    _, kc = kernel
    msg_id = kc.execute(READ_NAME, allow_stdin=True)
    req = kc.get_stdin_msg(timeout=TIMEOUT)
    assert req["msg_type"] == "input_request", f"stdin message type = {req['msg_type']!r}, want input_request"
    assert req["parent_header"]["msg_id"] == msg_id, "input_request's parent is not the execute_request"
    assert req["content"].get("password") is False, f"input_request {req['content']}, want password false"
    kc.input("gopher")
    reply = shell_reply(kc, msg_id)
    out = iopub_until_idle(kc, msg_id)
    assert reply["content"]["status"] == "ok", f"reply {reply['content']}"
    assert "hello, gopher" in stdout(out), f"stdout = {stdout(out)!r}, want 'hello, gopher'"


def test_stdin_not_allowed(kernel):
    _, kc = kernel
    msg_id = kc.execute(READ_NAME, allow_stdin=False)
    reply = shell_reply(kc, msg_id)
    out = iopub_until_idle(kc, msg_id)
    assert reply["content"]["status"] == "error", f"reply {reply['content']}, want an error"
    errs = errors(out)
    assert len(errs) == 1, f"error messages = {errs}, want 1"
    text = (errs[0]["content"]["evalue"]).lower()
    assert "stdin" in text or "input" in text, f"evalue = {errs[0]['content']['evalue']!r}, want it to say stdin is not available"
    try:
        msg = kc.get_stdin_msg(timeout=0.2)
    except Empty:
        pass
    else:
        raise AssertionError(f"kernel sent {msg['msg_type']} although allow_stdin was false")


def test_output_streams_while_cell_runs(kernel):
    # The cell prints, then waits for input: the print must reach the client
    # before the input is answered, or this test times out.
    _, kc = kernel
    code = 'import "fmt"\nfmt.Println("started")\nvar s string\nfmt.Scanln(&s)\nfmt.Println("got", s)'
    msg_id = kc.execute(code, allow_stdin=True)
    req = kc.get_stdin_msg(timeout=TIMEOUT)
    assert req["msg_type"] == "input_request", f"stdin message type = {req['msg_type']!r}"
    seen = ""
    while "started" not in seen:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            seen += msg["content"]["text"]
    kc.input("x")
    reply = shell_reply(kc, msg_id)
    out = iopub_until_idle(kc, msg_id)
    assert reply["content"]["status"] == "ok", f"reply {reply['content']}"
    assert "got x" in stdout(out), f"stdout after input = {stdout(out)!r}, want 'got x'"
