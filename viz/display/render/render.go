package render

import (
	"fmt"
	"html"
	"image"
	"reflect"
	"sort"
	"strings"

	"gonum.org/v1/plot"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/quant"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/viz"
	"github.com/gnnlab/gnnlab/viz/display"
)

// MaxRows bounds the rows of a table; MaxCols the columns of a tensor
// table. Longer axes show their first and last entries around an
// ellipsis.
const (
	MaxRows = 40
	MaxCols = 12
)

func init() { display.RegisterConverter(Convert) }

// Convert renders v when it is one of the types listed in the package
// documentation; ok is false for any other value.
func Convert(v any) (b display.Bundle, ok bool, err error) {
	switch x := v.(type) {
	case nil:
		return display.Bundle{}, false, nil
	case *tensor.Tensor:
		if x == nil {
			return display.Bundle{}, false, nil
		}
		return Tensor(x), true, nil
	case *plot.Plot:
		if x == nil {
			return display.Bundle{}, false, nil
		}
		b, err := Plot(x)
		return b, err == nil, err
	case image.Image:
		b, err := display.Image(x)
		return b, err == nil, err
	case *quant.Report:
		if x == nil {
			return display.Bundle{}, false, nil
		}
		return quantReport(x), true, nil
	case *nn.ModelSummary:
		if x == nil {
			return display.Bundle{}, false, nil
		}
		return modelSummary(x), true, nil
	}
	if html, ok := Table(v); ok {
		return display.Bundle{Data: map[string]any{"text/html": html, "text/plain": fmt.Sprintf("%v", v)}, Metadata: map[string]any{}}, true, nil
	}
	return display.Bundle{}, false, nil
}

// Plot renders p as a PNG figure of the house size.
func Plot(p *plot.Plot) (display.Bundle, error) {
	f := &viz.Figure{Plots: []*plot.Plot{p}, Width: viz.DefaultWidth, Height: viz.DefaultHeight, DPI: viz.DefaultDPI, Description: "plot"}
	if p.Title.Text != "" {
		f.Description = "plot: " + p.Title.Text
	}
	png, err := f.PNG()
	if err != nil {
		return display.Bundle{}, fmt.Errorf("render: plot: %w", err)
	}
	const css = 96 // CSS pixels an inch
	w := int(f.Width.Points() * css / 72)
	h := int(f.Height.Points() * css / 72)
	return display.PNG(png, f.Description, w, h), nil
}

// Tensor renders t: a header (shape, dtype, gradient) with the tensor's
// text preview, and an HTML table of its values.
func Tensor(t *tensor.Tensor) display.Bundle {
	head := fmt.Sprintf("Tensor shape=%v dtype=float32", t.Shape())
	if t.IsSparse() {
		head += " sparse (CSR)"
	}
	if t.RequiresGrad() {
		head += " requires_grad"
	}
	text := head + "\n" + t.String()
	var b strings.Builder
	fmt.Fprintf(&b, "<div class=\"gnnlab-tensor\"><div><code>%s</code></div>", html.EscapeString(head))
	if !t.IsSparse() {
		writeTensorTable(&b, t)
	}
	b.WriteString("</div>")
	return display.Bundle{Data: map[string]any{"text/plain": text, "text/html": b.String()}, Metadata: map[string]any{}}
}

// writeTensorTable writes a table of a scalar, a vector, a matrix, or the
// first matrix of a tensor of more axes.
func writeTensorTable(b *strings.Builder, t *tensor.Tensor) {
	shape := t.Shape()
	data := t.Data()
	rows, cols := 1, 1
	switch len(shape) {
	case 0:
	case 1:
		cols = shape[0]
	default:
		rows, cols = shape[len(shape)-2], shape[len(shape)-1]
	}
	if len(shape) > 2 {
		fmt.Fprintf(b, "<div>showing [%s:, :]</div>", strings.Repeat("0, ", len(shape)-2))
	}
	b.WriteString("<table><thead><tr><th></th>")
	colIdx := elide(cols, MaxCols)
	for _, j := range colIdx {
		if j < 0 {
			b.WriteString("<th>…</th>")
			continue
		}
		fmt.Fprintf(b, "<th>%d</th>", j)
	}
	b.WriteString("</tr></thead><tbody>")
	for _, i := range elide(rows, MaxRows) {
		if i < 0 {
			fmt.Fprintf(b, "<tr><th>…</th>%s</tr>", strings.Repeat("<td>…</td>", len(colIdx)))
			continue
		}
		fmt.Fprintf(b, "<tr><th>%d</th>", i)
		for _, j := range colIdx {
			if j < 0 {
				b.WriteString("<td>…</td>")
				continue
			}
			fmt.Fprintf(b, "<td>%.4g</td>", data[i*cols+j])
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
}

// elide returns the indices 0..n-1, or the first and last max/2 with -1
// standing for the ones left out.
func elide(n, max int) []int {
	var idx []int
	if n <= max {
		for i := 0; i < n; i++ {
			idx = append(idx, i)
		}
		return idx
	}
	for i := 0; i < max/2; i++ {
		idx = append(idx, i)
	}
	idx = append(idx, -1)
	for i := n - max/2; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// Table returns an HTML table of v when v is a slice or array of structs
// (or of pointers to structs), or a map; ok is false otherwise.
func Table(v any) (string, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		et := rv.Type().Elem()
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if et.Kind() != reflect.Struct {
			return "", false
		}
		fields := exported(et)
		if len(fields) == 0 {
			return "", false
		}
		var b strings.Builder
		b.WriteString("<table><thead><tr><th></th>")
		for _, f := range fields {
			fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(et.Field(f).Name))
		}
		b.WriteString("</tr></thead><tbody>")
		n := rv.Len()
		for _, i := range elide(n, MaxRows) {
			if i < 0 {
				fmt.Fprintf(&b, "<tr><th>…</th><td colspan=\"%d\">%d more rows</td></tr>", len(fields), n-MaxRows/2*2)
				continue
			}
			fmt.Fprintf(&b, "<tr><th>%d</th>", i)
			writeFields(&b, rv.Index(i), fields)
			b.WriteString("</tr>")
		}
		b.WriteString("</tbody></table>")
		return b.String(), true
	case reflect.Map:
		return mapTable(rv), true
	}
	return "", false
}

func mapTable(rv reflect.Value) string {
	keys := rv.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	vt := rv.Type().Elem()
	if vt.Kind() == reflect.Pointer {
		vt = vt.Elem()
	}
	var fields []int
	if vt.Kind() == reflect.Struct {
		fields = exported(vt)
	}
	var b strings.Builder
	b.WriteString("<table><thead><tr><th>key</th>")
	if fields != nil {
		for _, f := range fields {
			fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(vt.Field(f).Name))
		}
	} else {
		b.WriteString("<th>value</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for _, i := range elide(len(keys), MaxRows) {
		if i < 0 {
			fmt.Fprintf(&b, "<tr><th>…</th><td colspan=\"%d\">%d more rows</td></tr>", max(len(fields), 1), len(keys)-MaxRows/2*2)
			continue
		}
		fmt.Fprintf(&b, "<tr><th>%s</th>", cell(keys[i]))
		val := rv.MapIndex(keys[i])
		if fields != nil {
			writeFields(&b, val, fields)
		} else {
			fmt.Fprintf(&b, "<td>%s</td>", cell(val))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

// exported returns the indices of the exported fields of struct type t.
func exported(t reflect.Type) []int {
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).IsExported() {
			idx = append(idx, i)
		}
	}
	return idx
}

func writeFields(b *strings.Builder, v reflect.Value, fields []int) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			fmt.Fprintf(b, "<td colspan=\"%d\">nil</td>", len(fields))
			return
		}
		v = v.Elem()
	}
	for _, f := range fields {
		fmt.Fprintf(b, "<td>%s</td>", cell(v.Field(f)))
	}
}

func cell(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	if v.CanInterface() {
		return html.EscapeString(fmt.Sprintf("%v", v.Interface()))
	}
	return html.EscapeString(v.String())
}

// less orders map keys: numbers numerically, anything else by text.
func less(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() < b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() < b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() < b.Float()
	case reflect.String:
		return a.String() < b.String()
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}
