"""The standard conformance suite, jupyter_kernel_test 0.7, with every
sample attribute filled, run against the installed gnnlab kernelspec."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import jupyter_kernel_test

import kernelenv

DISPLAY = 'import "github.com/gnnlab/gnnlab/viz/display"\n'


class GnnlabKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = kernelenv.KERNEL_NAME
    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'import "fmt"\nfmt.Println("hello, world")'
    code_stderr = 'import (\n\t"fmt"\n\t"os"\n)\nfmt.Fprintln(os.Stderr, "to stderr")'

    # Keywords and package members; bare identifiers make the expected
    # matches the same whether the kernel replaces the whole dotted name or
    # only the part after the dot.
    completion_samples = [
        {"text": "fallthr", "matches": {"fallthrough"}},
        {"text": "contin", "matches": {"continue"}},
        {"text": 'import "strings"\nstrings.ToUpp'},
    ]

    complete_code_samples = [
        "x := 1",
        'import "fmt"\nfmt.Println("hi")',
        "func f() int { return 1 }",
        "type pt struct{ X, Y int }",
        "for i := 0; i < 3; i++ {\n}",
    ]
    incomplete_code_samples = [
        "func f() {",
        "for i := 0; i < 3; i++ {",
        "x := []int{1,\n2,",
        'fmt.Println("a",',
    ]
    invalid_code_samples = [
        "x := )",
        "func f() { ]",
        "}",
    ]

    code_generate_error = 'panic("boom")'

    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "x := 3\nx * x", "result": "9"},
        {"code": "len([]int{1, 2, 3})", "result": "3"},
    ]

    code_display_data = [
        {"code": DISPLAY + 'display.HTML("<b>hi</b>")', "mime": "text/html"},
        {"code": DISPLAY + 'display.Markdown("*hi*")', "mime": "text/markdown"},
    ]

    # A glob over the whole cell, as in IPython: matches "6 * 7" only, so the
    # unique search finds exactly one cell.
    code_history_pattern = "6 ? 7"
    supported_history_operations = ("tail", "range", "search")

    # IPython's convention: a trailing "?" pages the documentation of a name.
    code_page_something = "fmt.Println?"

    code_inspect_sample = 'import "fmt"\nfmt.Println'

    code_clear_output = DISPLAY + 'import "fmt"\nfmt.Println("soon gone")\ndisplay.Clear(false)'

    # The suite's history test counts cells, so this class gets a history
    # store of its own rather than the one shared by the session.
    _history: str = ""
    _old_history: str | None = None

    @classmethod
    def setUpClass(cls) -> None:
        cls._history = tempfile.mkdtemp(prefix="gnnlab-jkt-history-")
        cls._old_history = os.environ.get("GNNLAB_HISTORY")
        os.environ["GNNLAB_HISTORY"] = cls._history
        super().setUpClass()

    @classmethod
    def tearDownClass(cls) -> None:
        try:
            super().tearDownClass()
        finally:
            if cls._old_history is None:
                os.environ.pop("GNNLAB_HISTORY", None)
            else:
                os.environ["GNNLAB_HISTORY"] = cls._old_history
            shutil.rmtree(cls._history, ignore_errors=True)

    def get_non_kernel_info_reply(self, timeout: float | None = None) -> dict[str, Any] | None:
        # The suite waits forever here in its completion and is_complete tests;
        # bound every wait so that a silent kernel fails the test instead.
        if timeout is None:
            timeout = jupyter_kernel_test.TIMEOUT
        return super().get_non_kernel_info_reply(timeout=timeout)
