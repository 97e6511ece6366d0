"""The library issue's notebook snippet, run from a real Jupyter client:
a 2-layer GCN trained on Cora inside the gnnlab kernel reaches the
published accuracy, and a shape mistake in a cell is a clean error after
which the session goes on."""

from __future__ import annotations

import os

import pytest

from kclient import errors, execute, execute_ok, result_text

SNIPPET = """
import (
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
)
nn.Seed(1)
ds, err := data.Planetoid("cora")
if err != nil {
	panic(err)
}
ds.NormalizeFeatures()
model := nn.NewGCN(ds.NumFeatures(), 16, ds.NumClasses())
opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
for epoch := 0; epoch < 200; epoch++ {
	model.Train()
	loss := nn.CrossEntropy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TrainIdx)
	opt.ZeroGrad(); loss.Backward(); opt.Step()
}
model.Eval()
acc := nn.Accuracy(model.Forward(ds.Graph, ds.X), ds.Y, ds.TestIdx)
"""


@pytest.mark.timeout(180)
@pytest.mark.skipif(not os.environ.get("GNNLAB_DATA"), reason="GNNLAB_DATA is not set (make test sets it to ../shared/datasets)")
def test_gcn_on_cora_from_a_cell(kernel):
    _, kc = kernel
    execute_ok(kc, SNIPPET, timeout=150)
    text = result_text(execute_ok(kc, "acc"))
    assert text is not None, "cell `acc` showed no value"
    assert float(text) >= 0.80, f"GCN test accuracy from a cell = {text}, want >= 0.80 (Kipf & Welling: 0.815)"


def test_shape_error_is_clean_and_session_survives(kernel):
    _, kc = kernel
    execute_ok(kc, 'import "github.com/gnnlab/gnnlab/gnnlib/tensor"\nkeep := 7')
    reply, out = execute(kc, "tensor.Zeros(2, 3).MatMul(tensor.Zeros(2, 3))")
    assert reply["content"]["status"] == "error"
    errs = errors(out)
    assert len(errs) == 1, f"want exactly one error message, got {len(errs)}"
    assert "[2 3]" in errs[0]["content"]["evalue"], f"evalue {errs[0]['content']['evalue']!r} does not name the shapes"
    assert "yaegi" not in "\n".join(errs[0]["content"]["traceback"])
    assert result_text(execute_ok(kc, "keep")) == "7"
