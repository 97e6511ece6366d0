// Package viz turns graphs, training runs and measurements into labelled
// plots that show inline in a notebook, drawn with gonum.org/v1/plot.
//
// Every plot constructor takes plain data (or a gnnlib value) and returns
// a *Figure and an error, in gonum/plot's style (ProfileTable returns a
// Table, NewTrainingCurves a live *TrainingCurves). A Figure is a display
// Renderer: as the last value of a notebook cell it shows as a PNG; Show
// displays it from anywhere; Save writes .png, .svg or .pdf; PNG and SVG
// return the bytes. Figures are 6×4 inches (the width of a JupyterLab
// column), rendered at 192 dpi and shown at 96 CSS pixels an inch, so
// they stay sharp on dense screens; each is titled and labelled, and its
// text/plain form states what it shows with the key numbers.
//
// # Plots
//
//   - DegreeHistogram: degree distribution, linear and log-log, with a
//     power law fitted by maximum likelihood (FitPowerLaw) and its exponent.
//   - Speedup: speedup against threads with the ideal line and the Amdahl
//     curve of prof.FitAmdahl (SpeedupOf takes a prof.MeasureSpeedup result).
//   - Memory: a prof.MemoryProfile over time, phases shaded, peak marked.
//   - TrainingCurves: live loss and accuracy curves that update one output
//     through a display id, throttled to ten updates a second.
//   - ConfusionMatrix: counts on a heat map shaded by row share.
//   - Embedding: points projected on two principal components, coloured by
//     class.
//   - DrawGraph: Fruchterman–Reingold layout (Layout) with nodes coloured by
//     class or prediction; Cora's 2,708 nodes take about half a second
//     (0.3–0.4 s to lay out, 0.5–0.65 s for DrawGraph, on the shared
//     two-core development machine).
//   - DrawExplanation: a GNNExplainer explanation (nn.ExplainNode): the
//     explained node's neighbourhood, edges shaded by their mask, the top
//     ones in red, the explained node drawn larger.
//   - ImageGrid: digits, convolution filters or feature maps as grey tiles
//     on one scale, with a colour bar for values outside [0, 1].
//   - GroupedBars: side-by-side comparisons (FP32 against INT8, CPU against
//     GPU); GroupedBarsErr adds error bars, for bars that are means of seeds.
//   - Roofline: measured ops (RooflinePoints of a prof.OpReport) against a
//     machine's bandwidth and compute ceilings (prof.MeasurePeaks).
//   - OpProfile and ProfileTable: a prof.OpReport as bars and as an HTML
//     table.
//   - Lines: any named series against shared x values, optionally on a
//     logarithmic y axis or a base-2 x axis (LogX2, for doublings), with an
//     error band around a series that has Err (a mean of seeds ± its
//     standard error or 95 % half-width): loss curves of several runs,
//     gradient norms per layer, accuracy against depth.
//
// # Live training curves
//
//	tc := viz.NewTrainingCurves("loss", "train acc", "val acc")
//	tc.Show()
//	for epoch := 1; epoch <= 200; epoch++ {
//		// ... one training step ...
//		tc.Add(float64(epoch), loss, trainAcc, valAcc)
//	}
//	tc.Flush()
//
// # Styling
//
// Figure.Plots holds the gonum plots: change titles, axis ranges or add
// plotters there before the figure is rendered. Color gives the house
// colours (Tableau 10) that class colourings use.
//
// Linear axes get ticks at round values: multiples of 1, 2 or 5 times a
// power of ten (2.5 only when none of those gives 4 to 8 ticks), so an
// axis reads 0, 0.2, 0.4, … and never 3, 9, 15. Logarithmic axes get
// decades (or, with LogX2, powers of two). Lines, without an explicit
// LineOptions.Legend, and DrawExplanation put the legend in the first
// corner that covers none of the curves, bands, nodes or edges, and
// beside the plot when no corner is free.
//
// # Golden images
//
// The tests compare each plot kind with a PNG under testdata with a small
// tolerance (gonum.org/v1/plot/cmpimg); after an intended change,
// regenerate them with
//
//	go test ./viz -update
//
// BUG(gnnlab): DrawGraph's layout costs O(n + m) an iteration thanks to its
// grid, but the drawing of tens of thousands of nodes is unreadable anyway;
// sample a subgraph first (graph.KHopSubgraph).
//
// BUG(gnnlab): TrainingCurves updates only when Add, Update or Flush is
// called (there is no timer goroutine): call Flush after the loop to show
// the last epochs.
//
// BUG(gnnlab): ImageGrid draws grey tiles only; colour images show one
// tile a channel.
package viz
