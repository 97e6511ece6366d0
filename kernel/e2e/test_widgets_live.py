"""A widget moved while a long cell runs, through the real jupyter_client.

The cell would run 30 s; the test moves an Interact slider during it and
measures when the callback's output arrives, then ends the cell through a
second slider that the cell's loop reads. The latency is printed (run
pytest with -s), never asserted.
"""

from __future__ import annotations

import time

import pytest

from kclient import TIMEOUT, control_reply, execute_ok, shell_reply

IMPORTS = 'import (\n\t"fmt"\n\t"time"\n\t"github.com/gnnlab/gnnlab/viz/widgets"\n)'


def widget_ids(out, model):
    return [
        m["content"]["comm_id"]
        for m in out
        if m["msg_type"] == "comm_open" and m["content"]["data"]["state"].get("_model_name") == model
    ]


def send_update(kc, comm_id, key, value, subshell_id=None):
    msg = kc.session.msg(
        "comm_msg",
        {"comm_id": comm_id, "data": {"method": "update", "state": {key: value}, "buffer_paths": []}},
    )
    if subshell_id:
        msg["header"]["subshell_id"] = subshell_id
    kc.shell_channel.send(msg)
    return msg["header"]["msg_id"]


@pytest.mark.parametrize("via", ["main shell", "subshell"])
def test_slider_during_long_cell(kernel, via):
    _, kc = kernel
    subshell = None
    if via == "subshell":
        create = kc.session.msg("create_subshell_request", {})
        kc.control_channel.send(create)
        subshell = control_reply(kc, create["header"]["msg_id"])["content"]["subshell_id"]
    execute_ok(kc, IMPORTS)
    out = execute_ok(
        kc,
        'n := widgets.NewIntSlider("n", 0, 10, 1)\n'
        'stop := widgets.NewIntSlider("stop", 0, 1, 0)\n'
        'box := widgets.Interact(func() { fmt.Println("n is", n.Value()) }, n)\n'
        "box",
    )
    (slider,) = widget_ids(out, "IntSliderModel")[:1]
    (area,) = widget_ids(out, "OutputModel")
    # The stop slider is the second slider the cell opened.
    stop = widget_ids(out, "IntSliderModel")[1]

    cell = kc.execute(
        'fmt.Println("training")\n'
        "deadline := time.Now().Add(30 * time.Second)\n"
        "for stop.Value() == 0 && time.Now().Before(deadline) {\n"
        "\ttime.Sleep(10 * time.Millisecond)\n"
        "}\n"
        'fmt.Println("stopped")'
    )
    # Wait for the cell to print, so the change lands inside it.
    deadline = time.monotonic() + TIMEOUT
    while True:
        m = kc.get_iopub_msg(timeout=deadline - time.monotonic())
        if m["parent_header"].get("msg_id") == cell and m["msg_type"] == "stream":
            break
    time.sleep(1.0)
    sent = time.monotonic()
    upd = send_update(kc, slider, "value", 7, subshell)
    printed = None
    seq = []  # the Output widget's capture window and the callback's print, in order
    while printed is None:
        m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        parent = m["parent_header"].get("msg_id")
        if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == area:
            seq.append(("capture", m["content"]["data"]["state"].get("msg_id")))
        if m["msg_type"] == "stream" and m["content"]["text"] == "n is 7\n":
            printed = time.monotonic()
            seq.append(("print", parent))
    print(f"\nslider change during a running cell ({via}): callback output {1000 * (printed - sent):.1f} ms after the comm_msg")
    # The Output widget captures under a msg_id and the callback's print is
    # published under that msg_id inside the window: JupyterLab shows it in
    # the widget's output area, not in the running cell's.
    assert len(seq) == 2 and seq[0][0] == "capture" and seq[0][1] and seq[1] == ("print", seq[0][1]), seq
    # The update's own msg_id, not the running cell's: what the cell prints
    # meanwhile stays in the cell.
    assert seq[0][1] == upd, seq

    send_update(kc, stop, "value", 1)
    reply = shell_reply(kc, cell, timeout=TIMEOUT + 30)
    assert reply["content"]["status"] == "ok"
    ended = time.monotonic()
    assert ended - sent < 25, "the cell ran to its deadline: the stop slider was not seen"


def test_callback_output_apart_from_running_cell(kernel):
    """A cell prints a line every millisecond while a slider's callback
    prints for about 100 ms: the callback's lines (stdout and stderr) are
    published under its comm_msg, which the Output widget captures under,
    and every line of the cell under the cell, none inside the capture
    window under the captured msg_id."""
    _, kc = kernel
    execute_ok(kc, IMPORTS + '\nimport "os"')
    out = execute_ok(
        kc,
        'n := widgets.NewIntSlider("n", 0, 10, 1)\n'
        'stop := widgets.NewIntSlider("stop", 0, 1, 0)\n'
        "box := widgets.Interact(func() {\n"
        "\tfor i := 0; i < 5; i++ {\n"
        '\t\tfmt.Println("callback", n.Value(), i)\n'
        "\t\ttime.Sleep(20 * time.Millisecond)\n"
        "\t}\n"
        '\tfmt.Fprintln(os.Stderr, "callback stderr", n.Value())\n'
        "}, n)\n"
        "box",
    )
    slider, stop = widget_ids(out, "IntSliderModel")[:2]
    (area,) = widget_ids(out, "OutputModel")
    cell = kc.execute(
        "for i := 0; stop.Value() == 0 && i < 20000; i++ {\n"
        '\tfmt.Println("tick", i)\n'
        "\ttime.Sleep(time.Millisecond)\n"
        "}"
    )
    deadline = time.monotonic() + TIMEOUT
    msgs = []
    while not any(m["msg_type"] == "stream" for m in msgs):
        m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        if m["parent_header"].get("msg_id") == cell:
            msgs.append(m)
    upd = send_update(kc, slider, "value", 7)
    # Up to the update's idle: its handlers are done.
    while True:
        m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        msgs.append(m)
        if (
            m["parent_header"].get("msg_id") == upd
            and m["msg_type"] == "status"
            and m["content"]["execution_state"] == "idle"
        ):
            break
    send_update(kc, stop, "value", 1)
    reply = shell_reply(kc, cell)
    assert reply["content"]["status"] == "ok", reply["content"]
    while True:
        m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        msgs.append(m)
        if (
            m["parent_header"].get("msg_id") == cell
            and m["msg_type"] == "status"
            and m["content"]["execution_state"] == "idle"
        ):
            break

    # Play JupyterLab's Output widget: while its msg_id is set, it takes
    # every output message published under that msg_id.
    captured, capture, in_window = [], None, 0
    cell_text, callback_text = {"stdout": "", "stderr": ""}, {"stdout": "", "stderr": ""}
    windows = []
    for m in msgs:
        parent = m["parent_header"].get("msg_id")
        if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == area:
            state = m["content"]["data"].get("state", {})
            if "msg_id" in state:
                capture = state["msg_id"] or None
                windows.append(state["msg_id"])
            continue
        if m["msg_type"] != "stream":
            continue
        name, text = m["content"]["name"], m["content"]["text"]
        if capture is not None and parent == capture:
            captured.append(text)
        if capture is not None and parent == cell:
            in_window += text.count("tick")
        if parent == cell:
            cell_text[name] += text
        elif parent == upd:
            callback_text[name] += text
        else:
            raise AssertionError(f"stream {text!r} under {parent}, want the cell's or the update's")
    assert windows == [upd, ""], windows
    want = "".join(f"callback 7 {i}\n" for i in range(5))
    assert callback_text == {"stdout": want, "stderr": "callback stderr 7\n"}, callback_text
    assert "".join(captured) == want + "callback stderr 7\n", captured
    lines = cell_text["stdout"].splitlines()
    assert lines == [f"tick {i}" for i in range(len(lines))], lines[:20]
    assert cell_text["stderr"] == "", cell_text
    # The cell printed while the callback's capture was open.
    assert in_window > 0, f"no tick published while the Output captured; {len(lines)} in all"
    print(f"\n{in_window} of the cell's ticks arrived while the callback's Output captured; all under the cell")
