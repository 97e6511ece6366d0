"""What a front end's Tab and Shift-Tab get from a live session, through
jupyter_client: only what a cell may use, and docs with examples."""

from __future__ import annotations

from kclient import execute, execute_ok, shell_reply


def test_complete_offers_only_usable_members(kernel) -> None:
    _, kc = kernel
    execute_ok(kc, 'import "github.com/gnnlab/gnnlab/gnnlib/data"\nds := data.KarateClub()')
    code = "ds."
    reply = shell_reply(kc, kc.complete(code, len(code)))["content"]
    got = set(reply["matches"])
    assert {"NumClasses", "X"} <= got, reply
    assert not {"features", "numClasses"} & got, f"complete(ds.) offers unexported fields: {sorted(got)}"
    reply, out = execute(kc, "ds.numClasses")
    assert reply["content"]["status"] == "error", reply["content"]
    assert "cannot refer to unexported field numClasses" in reply["content"]["evalue"], reply["content"]
    assert "reflect" not in str(reply["content"]), reply["content"]


def test_inspect_shows_example_and_source(kernel) -> None:
    _, kc = kernel
    code = "nn.NewGCN"
    text = shell_reply(kc, kc.inspect(code, len(code), 0))["content"]["data"]["text/plain"]
    assert "func NewGCN(in, hidden, out int) *GCN" in text and "Example:" in text, text
    assert "Source (" not in text, text
    text = shell_reply(kc, kc.inspect(code, len(code), 1))["content"]["data"]["text/plain"]
    assert "Source (models.go:" in text, text
