package nn

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ModelSummary describes a model: one row per layer (the leaves of its
// tree of modules), the parameter count and, when the summary ran the
// model on an input, the output shapes. Its String form is a text table;
// in a notebook it renders as an HTML table (viz/display/render).
type ModelSummary struct {
	// Model is the model's type, such as "GCN" or "Sequential".
	Model string
	Rows  []SummaryRow
	// Params is the number of parameter elements, each tensor counted
	// once.
	Params int
	// Input and Output are the shapes the model was run on and returned;
	// nil for Summary, which runs nothing.
	Input, Output []int
}

// SummaryRow is one layer of a ModelSummary.
type SummaryRow struct {
	// Name is the layer's path in the model: its field names ("Conv1"),
	// Sequential positions ("2") or slice indices ("Convs.0"), joined by
	// dots; "(own)" for parameters a composite module holds itself.
	Name string
	// Layer is the layer's String form (its type and sizes).
	Layer string
	// Output is the layer's output shape, known for the layers of a
	// Sequential run by InputSummary; nil otherwise.
	Output []int
	// ParamShapes lists the shapes of the layer's parameters, Params
	// their total number of elements.
	ParamShapes [][]int
	Params      int
}

// Summary lists m's layers and parameters without running it.
func Summary(m Module) *ModelSummary {
	s := &ModelSummary{Model: typeName(m)}
	s.walk("", m)
	seen := map[*tensor.Tensor]bool{}
	for _, p := range m.Params() {
		if !seen[p] {
			seen[p] = true
			s.Params += p.Len()
		}
	}
	return s
}

// GraphSummary is Summary with the output shape of m.Forward(g, x), run
// in evaluation mode without gradients; m's mode is restored afterwards
// when it reports one (Training() bool, as the package's layers do).
func GraphSummary(m GraphLayer, g *graph.Graph, x *tensor.Tensor) *ModelSummary {
	s := Summary(m)
	s.Input = x.Shape()
	inEval(m, func() { s.Output = m.Forward(g, x).Shape() })
	return s
}

// InputSummary is Summary with the output shape of m.Forward(x), run in
// evaluation mode without gradients. For a Sequential it runs the layers
// one by one and records each one's output shape.
func InputSummary(m Layer, x *tensor.Tensor) *ModelSummary {
	s := Summary(m)
	s.Input = x.Shape()
	inEval(m, func() {
		if seq, ok := m.(*Sequential); ok {
			h := x
			for i, l := range seq.Layers {
				h = l.Forward(h)
				for j := range s.Rows {
					if n := s.Rows[j].Name; n == strconv.Itoa(i) || strings.HasPrefix(n, strconv.Itoa(i)+".") {
						s.Rows[j].Output = h.Shape()
					}
				}
			}
			s.Output = h.Shape()
			return
		}
		s.Output = m.Forward(x).Shape()
	})
	return s
}

// inEval runs f with m in evaluation mode and gradients off.
func inEval(m Module, f func()) {
	if t, ok := m.(interface{ Training() bool }); ok {
		defer m.SetTraining(t.Training())
	}
	m.SetTraining(false)
	tensor.NoGrad(f)
}

func typeName(m any) string {
	t := reflect.TypeOf(m)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

var moduleType = reflect.TypeOf((*Module)(nil)).Elem()

// children returns the named sub-modules of m: a Sequential's layers, or
// the exported fields of a struct that hold a Module or a slice of them.
func children(m Module) (names []string, mods []Module) {
	if s, ok := m.(*Sequential); ok {
		for i, l := range s.Layers {
			names, mods = append(names, strconv.Itoa(i)), append(mods, l)
		}
		return names, mods
	}
	v := reflect.ValueOf(m)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, nil
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		fv := v.Field(i)
		add := func(name string, x reflect.Value) {
			if x.Type().Implements(moduleType) && !(isNilable(x) && x.IsNil()) {
				names, mods = append(names, name), append(mods, x.Interface().(Module))
			}
		}
		if fv.Kind() == reflect.Slice && fv.Type().Elem().Implements(moduleType) {
			for j := 0; j < fv.Len(); j++ {
				add(f.Name+"."+strconv.Itoa(j), fv.Index(j))
			}
			continue
		}
		add(f.Name, fv)
	}
	return names, mods
}

func isNilable(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map, reflect.Func, reflect.Chan:
		return true
	}
	return false
}

// walk adds the rows of m under the path prefix.
func (s *ModelSummary) walk(prefix string, m Module) {
	names, mods := children(m)
	if len(mods) == 0 {
		s.Rows = append(s.Rows, leafRow(prefix, m, m.Params()))
		return
	}
	covered := map[*tensor.Tensor]bool{}
	for i, c := range mods {
		for _, p := range c.Params() {
			covered[p] = true
		}
		s.walk(join(prefix, names[i]), c)
	}
	var own []*tensor.Tensor
	for _, p := range m.Params() {
		if !covered[p] {
			own = append(own, p)
		}
	}
	if len(own) > 0 {
		r := leafRow(join(prefix, "(own)"), m, own)
		r.Layer = typeName(m)
		s.Rows = append(s.Rows, r)
	}
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func leafRow(name string, m Module, ps []*tensor.Tensor) SummaryRow {
	if name == "" {
		name = "(model)"
	}
	r := SummaryRow{Name: name, Layer: fmt.Sprint(m)}
	for _, p := range ps {
		r.ParamShapes = append(r.ParamShapes, p.Shape())
		r.Params += p.Len()
	}
	return r
}

// shapeString formats a shape as [2708 16], or "-" for nil.
func shapeString(s []int) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprint(s)
}

// OutputString formats the row's output shape, such as "[2708 16]", or
// "-" when it is not known.
func (r SummaryRow) OutputString() string { return shapeString(r.Output) }

// ParamShapeString formats the parameter shapes of a row, such as
// "[1433 16] [16]".
func (r SummaryRow) ParamShapeString() string {
	parts := make([]string, len(r.ParamShapes))
	for i, p := range r.ParamShapes {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, " ")
}

// String returns the summary as an aligned text table.
func (s *ModelSummary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", s.Model)
	if s.Input != nil {
		fmt.Fprintf(&b, " on input %v", s.Input)
	}
	b.WriteString("\n")
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "layer\ttype\toutput\tparameter shapes\tparams")
	for _, r := range s.Rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\n", r.Name, r.Layer, r.OutputString(), r.ParamShapeString(), r.Params)
	}
	w.Flush()
	fmt.Fprintf(&b, "total parameters: %d", s.Params)
	if s.Output != nil {
		fmt.Fprintf(&b, "; output %v", s.Output)
	}
	return b.String()
}
