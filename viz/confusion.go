package viz

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// ramp is a sequential palette from white to dark blue.
type ramp []color.Color

func (r ramp) Colors() []color.Color { return r }

func blues(n int) ramp {
	lo, hi := [3]float64{247, 251, 255}, [3]float64{8, 48, 107}
	r := make(ramp, n)
	for i := range r {
		t := float64(i) / float64(n-1)
		r[i] = color.RGBA{uint8(lo[0] + t*(hi[0]-lo[0])), uint8(lo[1] + t*(hi[1]-lo[1])), uint8(lo[2] + t*(hi[2]-lo[2])), 255}
	}
	return r
}

// confusionGrid is the heat map's view of the matrix: row 0 (the first
// true class) at the top, cells coloured by the share of their row.
type confusionGrid struct {
	counts [][]int
	rowSum []int
}

func (g confusionGrid) Dims() (c, r int) { return len(g.counts), len(g.counts) }
func (g confusionGrid) X(c int) float64  { return float64(c) }
func (g confusionGrid) Y(r int) float64  { return float64(r) }
func (g confusionGrid) Z(c, r int) float64 {
	row := len(g.counts) - 1 - r
	if g.rowSum[row] == 0 {
		return 0
	}
	return float64(g.counts[row][c]) / float64(g.rowSum[row])
}

// ConfusionMatrix plots the confusion matrix of predictions against true
// classes: rows are true classes, columns predictions, each cell shows its
// count and is shaded by its share of the row (the class's recall on the
// diagonal). classes names the classes; nil numbers them.
func ConfusionMatrix(pred, truth []int, classes []string) (*Figure, error) {
	if len(pred) != len(truth) || len(pred) == 0 {
		return nil, fmt.Errorf("%w: %d predictions for %d labels", ErrData, len(pred), len(truth))
	}
	k := len(classes)
	for i := range pred {
		k = max(k, pred[i]+1, truth[i]+1)
		if pred[i] < 0 || truth[i] < 0 {
			return nil, fmt.Errorf("%w: negative class at %d", ErrData, i)
		}
	}
	if classes != nil && k > len(classes) {
		return nil, fmt.Errorf("%w: class %d but %d class names", ErrData, k-1, len(classes))
	}
	names := classes
	if names == nil {
		names = make([]string, k)
		for i := range names {
			names[i] = strconv.Itoa(i)
		}
	}
	g := confusionGrid{counts: make([][]int, k), rowSum: make([]int, k)}
	for i := range g.counts {
		g.counts[i] = make([]int, k)
	}
	correct := 0
	for i := range pred {
		g.counts[truth[i]][pred[i]]++
		g.rowSum[truth[i]]++
		if pred[i] == truth[i] {
			correct++
		}
	}
	acc := float64(correct) / float64(len(pred))
	f := NewFigure(fmt.Sprintf("Confusion matrix (accuracy %.1f%%, %d samples)", 100*acc, len(pred)), "predicted", "true")
	f.Description = fmt.Sprintf("Confusion matrix of %d samples, %d classes, accuracy %.4f; rows true, columns predicted: %v", len(pred), k, acc, g.counts)
	// Square cells: a figure as high as it is wide, less the title.
	f.Width, f.Height = 5.2*DefaultWidth/6, 5.2*DefaultWidth/6
	p := f.Plot()
	h := plotter.NewHeatMap(g, blues(64))
	h.Min, h.Max = 0, 1
	p.Add(h)
	var xys plotter.XYs
	var labels []string
	var styles []text.Style
	for r := 0; r < k; r++ {
		for c := 0; c < k; c++ {
			xys = append(xys, plotter.XY{X: float64(c), Y: float64(k - 1 - r)})
			labels = append(labels, strconv.Itoa(g.counts[r][c]))
		}
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("viz: confusion matrix: %w", err)
	}
	size := 10.0
	if k > 10 {
		size = 7
	}
	for i := range l.TextStyle {
		r, c := i/k, i%k
		st := l.TextStyle[i]
		st.XAlign, st.YAlign = text.XCenter, text.YCenter
		st.Font.Size = vg.Points(size)
		st.Color = color.Black
		if g.Z(c, k-1-r) > 0.55 {
			st.Color = color.White
		}
		styles = append(styles, st)
	}
	l.TextStyle = styles
	p.Add(l)
	xt, yt := make(plot.ConstantTicks, k), make(plot.ConstantTicks, k)
	for i := range names {
		xt[i] = plot.Tick{Value: float64(i), Label: names[i]}
		yt[i] = plot.Tick{Value: float64(k - 1 - i), Label: names[i]}
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.5, float64(k)-0.5, -0.5, float64(k)-0.5
	return f, nil
}
