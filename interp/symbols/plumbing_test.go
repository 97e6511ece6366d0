package symbols

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// TestNoDeprecatedSymbols checks that no preloaded package offers a
// cell a deprecated identifier: completion lists every symbol of the
// tables, so a forwarder kept for old callers would be offered to new
// ones (issue 27 removed the last of them).
func TestNoDeprecatedSymbols(t *testing.T) {
	for key, doc := range Docs {
		if strings.Contains(doc, "\nDeprecated:") {
			t.Errorf("%s is deprecated but still preloaded: remove it and update its callers", key)
		}
	}
}

// TestNoPlumbingInNotebookNamespace checks that the plumbing that moved
// out of the packages notebooks use is not back: the autograd and
// registry hooks of backend packages (gnnlib/tensor/backend, which cells
// do not preload) and the raw-slice kernels on graph.Graph (now
// gnnlib/graph/kernels, which a notebook imports explicitly).
func TestNoPlumbingInNotebookNamespace(t *testing.T) {
	tensorSyms := Symbols["github.com/gnnlab/gnnlab/gnnlib/tensor/tensor"]
	if tensorSyms == nil {
		t.Fatal("no symbol table for gnnlib/tensor")
	}
	for _, name := range []string{"NewOpSince", "NewGraphOpSince", "OpStart", "FromStorage", "SetOpHook", "RegisterBackend", "RegisterMemory"} {
		if _, ok := tensorSyms[name]; ok {
			t.Errorf("tensor.%s is preloaded; it is backend plumbing (gnnlib/tensor/backend)", name)
		}
	}
	if _, ok := Symbols["github.com/gnnlab/gnnlab/gnnlib/graph/kernels/kernels"]["SpMM"]; !ok {
		t.Error("kernels.SpMM is not preloaded; notebooks 03, 05 and 06 import gnnlib/graph/kernels")
	}
	methods := reflect.TypeOf(&graph.Graph{})
	for _, name := range []string{"SpMM", "SpMMT", "MeanAggregate", "MeanAggregateT", "AttentionAggregate", "AttentionAggregateT",
		"SDDMM", "SDDMMAdd", "EdgeSoftmax", "EdgeSoftmaxBackward", "AggregateMax", "AggregateMin"} {
		if _, ok := methods.MethodByName(name); ok {
			t.Errorf("graph.Graph has the method %s; its raw-slice kernels live in gnnlib/graph/kernels", name)
		}
	}
}
