package render_test

import (
	"image"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/quant"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/viz/display"
	"github.com/gnnlab/gnnlab/viz/display/render"
)

type row struct {
	Name  string
	Score float64
	note  string
}

func TestConvert(t *testing.T) {
	p := plot.New()
	p.Title.Text = "loss"
	line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(line)
	tests := []struct {
		name     string
		v        any
		ok       bool
		mime     string
		contains []string // in the bundle's data of mime
	}{
		{"image", image.NewGray(image.Rect(0, 0, 4, 4)), true, "image/png", nil},
		{"plot", p, true, "image/png", nil},
		{"tensor text", tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3), true, "text/plain", []string{"shape=[2 3]", "dtype=float32"}},
		{"tensor html", tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3), true, "text/html", []string{"<table>", "<td>6</td>"}},
		{"structs", []row{{"a", 1, "x"}, {"b", 2.5, "y"}}, true, "text/html", []string{"<th>Name</th>", "<th>Score</th>", "<td>2.5</td>"}},
		{"pointers to structs", []*row{{Name: "a"}, nil}, true, "text/html", []string{"<td>a</td>", "nil"}},
		{"map", map[string]int{"b": 2, "a": 1}, true, "text/html", []string{"<th>a</th><td>1</td></tr><tr><th>b</th>"}},
		{"html escaped", []row{{Name: "<script>"}}, true, "text/html", []string{"&lt;script&gt;"}},
		{"ints", []int{1, 2}, false, "", nil},
		{"string", "x", false, "", nil},
		{"nil tensor", (*tensor.Tensor)(nil), false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ok, err := render.Convert(tt.v)
			if err != nil || ok != tt.ok {
				t.Fatalf("Convert(%T) = _, %v, %v, want %v, nil", tt.v, ok, err, tt.ok)
			}
			if !ok {
				return
			}
			data, has := b.Data[tt.mime].(string)
			if !has {
				t.Fatalf("Convert(%T) has no %s: %v", tt.v, tt.mime, keys(b))
			}
			for _, c := range tt.contains {
				if !strings.Contains(data, c) {
					t.Errorf("Convert(%T)[%s] = %q, want it to contain %q", tt.v, tt.mime, data, c)
				}
			}
			if _, has := b.Data["text/plain"]; !has {
				t.Errorf("Convert(%T) has no text/plain", tt.v)
			}
			if strings.Contains(data, "note") {
				t.Errorf("Convert(%T) shows the unexported field: %q", tt.v, data)
			}
		})
	}
}

// A quantization report shows as a table through the converter: gnnlib/quant
// itself knows no notebook type.
func TestQuantReport(t *testing.T) {
	r := &quant.Report{Model: "m<1>", Rows: []quant.Row{{Variant: "FP32", Accuracy: 0.5, Bytes: 400}, {Variant: "INT8 PTQ", Accuracy: 0.49, Bytes: 100}}}
	b, ok, err := render.Convert(r)
	if err != nil || !ok {
		t.Fatalf("Convert(*quant.Report) = _, %v, %v, want true, nil", ok, err)
	}
	h, _ := b.Data["text/html"].(string)
	if !strings.Contains(h, "m&lt;1&gt;") || !strings.Contains(h, "4.00×") {
		t.Errorf("Convert(*quant.Report) HTML = %q, want the escaped model name and the 4.00× ratio", h)
	}
	if b.Data["text/plain"] != r.String() {
		t.Errorf("Convert(*quant.Report) text = %q, want the report's String()", b.Data["text/plain"])
	}
}

func TestLongTableElided(t *testing.T) {
	rows := make([]row, 100)
	html, ok := render.Table(rows)
	if !ok {
		t.Fatal("Table([]row) not ok")
	}
	// The header row, MaxRows rows and the ellipsis row.
	if n := strings.Count(html, "<tr><th>"); n != render.MaxRows+2 {
		t.Errorf("Table(100 rows) has %d body rows, want %d", n, render.MaxRows+2)
	}
	if !strings.Contains(html, "60 more rows") {
		t.Errorf("Table(100 rows) does not say how many were left out")
	}
}

func TestRegistered(t *testing.T) {
	b, err := display.Render(image.NewGray(image.Rect(0, 0, 2, 2)))
	if err != nil || b.Data["image/png"] == nil {
		t.Errorf("display.Render(image) = %v, %v, want a PNG through the registered converter", keys(b), err)
	}
}

func keys(b display.Bundle) []string {
	var k []string
	for m := range b.Data {
		k = append(k, m)
	}
	return k
}

// A model summary shows as a table of layers through the converter.
func TestModelSummary(t *testing.T) {
	nn.Seed(1)
	s := nn.InputSummary(nn.NewMLP(4, 8, 2), tensor.Ones(3, 4))
	b, ok, err := render.Convert(s)
	if err != nil || !ok {
		t.Fatalf("Convert(*nn.ModelSummary) = _, %v, %v, want true, nil", ok, err)
	}
	h, _ := b.Data["text/html"].(string)
	for _, want := range []string{"<caption>Sequential on input [3 4]</caption>", "Linear(4, 8, bias=true)", "<td>[3 8]</td>", "[4 8] [8]", ">58</th>"} {
		if !strings.Contains(h, want) {
			t.Errorf("Convert(*nn.ModelSummary) HTML = %q, want it to contain %q", h, want)
		}
	}
	if b.Data["text/plain"] != s.String() {
		t.Errorf("Convert(*nn.ModelSummary) text = %q, want the summary's String()", b.Data["text/plain"])
	}
}
