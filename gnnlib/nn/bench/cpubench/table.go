package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
)

// row is one measured case of one side.
type row struct {
	model, dataset string
	ms             float64
	note           string
}

// readTSV reads lines "SIDE\tMODEL\tDATASET\tMS\tNOTE" in order; other
// lines (comments, blank) are skipped.
func readTSV(path string) (side string, rows []row, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("cpubench: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 4 {
			continue
		}
		ms, err := strconv.ParseFloat(fields[3], 64)
		if err != nil {
			continue
		}
		side = fields[0]
		r := row{model: fields[1], dataset: fields[2], ms: ms}
		if len(fields) > 4 {
			r.note = fields[4]
		}
		rows = append(rows, r)
	}
	return side, rows, sc.Err()
}

// goal returns the largest acceptable ratio gnnlab/PyG of a case (issue 3).
func goal(model, dataset string) float64 {
	if model == "GCN" && dataset == "cora" {
		return 0.5
	}
	return 1.0
}

// interpRatio reads `go test -bench TrainingLoop` output and returns the
// median ms/epoch of the compiled and the cell loop.
func interpRatio(path string) (compiled, cell float64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("cpubench: %w", err)
	}
	var comp, cel []float64
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.HasPrefix(fields[0], "BenchmarkTrainingLoop/") {
			continue
		}
		for i := 1; i+1 < len(fields); i++ {
			if fields[i+1] != "ms/epoch" {
				continue
			}
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			if strings.HasPrefix(fields[0], "BenchmarkTrainingLoop/compiled") {
				comp = append(comp, v)
			} else if strings.HasPrefix(fields[0], "BenchmarkTrainingLoop/cell") {
				cel = append(cel, v)
			}
		}
	}
	if len(comp) == 0 || len(cel) == 0 {
		return 0, 0, fmt.Errorf("cpubench: no BenchmarkTrainingLoop compiled and cell results in %s", path)
	}
	return median(comp), median(cel), nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ { // insertion sort: a handful of values
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// printTable joins the gnnlab and PyG results by model and dataset and
// writes the comparison, with the interpreter overhead when interpPath is
// not empty.
func printTable(w io.Writer, goPath, pygPath, interpPath string) error {
	_, ours, err := readTSV(goPath)
	if err != nil {
		return err
	}
	_, theirs, err := readTSV(pygPath)
	if err != nil {
		return err
	}
	pyg := map[[2]string]row{}
	for _, r := range theirs {
		pyg[[2]string{r.model, r.dataset}] = r
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tdataset\tgnnlab ms/epoch\tPyG ms/epoch\tgnnlab/PyG\tgoal\tmet\t")
	for _, r := range ours {
		p, ok := pyg[[2]string{r.model, r.dataset}]
		if !ok {
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t-\t-\t-\t-\t\n", r.model, r.dataset, r.ms)
			continue
		}
		ratio, g := r.ms/p.ms, goal(r.model, r.dataset)
		met := "yes"
		if ratio > g {
			met = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.2f\t≤ %.2f\t%s\t\n", r.model, r.dataset, r.ms, p.ms, ratio, g, met)
	}
	if interpPath != "" {
		comp, cell, err := interpRatio(interpPath)
		if err != nil {
			return err
		}
		met := "yes"
		if cell/comp > 1.10 {
			met = "no"
		}
		fmt.Fprintf(tw, "GCN loop: cell vs compiled\tcora\t%.2f (cell)\t%.2f (compiled)\t%.2f\t≤ 1.10\t%s\t\n", cell, comp, cell/comp, met)
	}
	return tw.Flush()
}
