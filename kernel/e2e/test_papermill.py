"""papermill from PyPI runs a gnnlab notebook with -p parameters: the
translator of install/papermill_gnnlab writes them as a Go cell."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import nbformat

import kernelenv


def _notebook(path: pathlib.Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": kernelenv.KERNEL_NAME, "display_name": "Go (gnnlab)", "language": "go"}
    nb.metadata["language_info"] = {"name": "go"}
    params = nbformat.v4.new_code_cell('epochs := 3\nlr := 0.1\nname := "karate"\nverbose := false')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_code_cell('import "fmt"'),
        params,
        nbformat.v4.new_code_cell(
            'fmt.Printf("%d %.2f %s %v %v %T\\n", epochs*2, lr*2, name, verbose, sizes, sizes)'
        ),
    ]
    nb.cells[2].source = 'sizes := []int{0}\n' + nb.cells[2].source
    nbformat.write(nb, path)


def test_papermill_parameters(tmp_path: pathlib.Path) -> None:
    src, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    _notebook(src)
    papermill = pathlib.Path(sys.executable).parent / "papermill"
    run = subprocess.run(
        [str(papermill), str(src), str(out),
         "-p", "epochs", "10", "-p", "lr", "0.25", "-p", "name", 'cora "full"', "-p", "verbose", "True",
         "--kernel", kernelenv.KERNEL_NAME],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, f"papermill failed: {run.stderr[-3000:]}"
    nb = nbformat.read(out, as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1, [c.source for c in nb.cells]
    assert injected[0].source == (
        '// Parameters\nepochs := 10\nlr := 0.25\nname := "cora \\"full\\""\nverbose := true\n'
    )
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert text == '20 0.50 cora "full" true [0] []int\n', nb.cells[-1].outputs


def test_translator_types() -> None:
    from papermill.translators import papermill_translators

    tr = papermill_translators.find_translator("gnnlab", "go")
    got = tr.codify({"xs": [1, 2.5], "names": ["a"], "d": {"k": 1}, "none": None, "big": 1e20, "inf": float("inf")})
    assert got == (
        'import "math"\n// Parameters\nxs := []float64{1.0, 2.5}\nnames := []string{"a"}\n'
        'd := map[string]int{"k": 1}\nvar none any\nbig := 1e+20\ninf := math.Inf(1)\n'
    )
