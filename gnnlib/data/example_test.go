package data_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func ExampleKarateClub() {
	ds := data.KarateClub()
	fmt.Println(ds)
	fmt.Println("Mr. Hi's faction:", ds.Y[0], "the officer's:", ds.Y[33])
	// Output:
	// karate(nodes=34, edges=156, features=34, classes=2, train=4, val=0, test=30)
	// Mr. Hi's faction: 0 the officer's: 1
}

func ExamplePlanetoid() {
	// GNNLAB_DATA points at a folder with planetoid/ind.cora.* (tests set it).
	ds, err := data.Planetoid("cora")
	if err != nil {
		fmt.Println(err)
		return
	}
	ds.NormalizeFeatures()
	fmt.Println(ds)
	// Output:
	// cora(nodes=2708, edges=10556, features=1433, classes=7, train=140, val=500, test=1000)
}

func ExampleLoadTU() {
	// A generated two-graph dataset in the TU text format: a triangle
	// (label 1) and an edge (label 2), node labels 0 and 1.
	dir, _ := os.MkdirTemp("", "tu")
	defer os.RemoveAll(dir)
	files := map[string]string{
		"A":               "1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n4, 5\n5, 4\n",
		"graph_indicator": "1\n1\n1\n2\n2\n",
		"graph_labels":    "1\n2\n",
		"node_labels":     "0\n1\n0\n1\n1\n",
	}
	for kind, text := range files {
		os.WriteFile(filepath.Join(dir, "TOY_"+kind+".txt"), []byte(text), 0o644)
	}
	ds, err := data.LoadTU(dir, "TOY")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds)
	b := ds.Batch([]int{0, 1})
	fmt.Println(b.Graph, "batch", b.Batch, "labels", b.Y)
	// Output:
	// TOY(graphs=2, nodes=5, edges=8, features=2, classes=2)
	// Graph(nodes=5, edges=8) batch [0 0 0 1 1] labels [0 1]
}

func ExampleNewNeighborLoader() {
	g, xs, y, _ := graph.SBM(graph.SBMOptions{Sizes: []int{500, 500}, PIn: 0.02, POut: 0.002, Features: 8, Signal: 1, Seed: 1})
	x := tensor.Wrap(xs, g.NumNodes(), 8)
	seeds := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	loader, err := data.NewNeighborLoader(g, x, y, seeds, data.NeighborLoaderOptions{
		BatchSize: 4, Fanouts: []int{5, 5}, Shuffle: true, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loader)
	it := loader.Iter() // sampling starts on a background goroutine
	defer it.Close()
	for it.Next() {
		b := it.Batch()
		// model.ForwardBlocks(b.Graphs(), b.X) gives one row per seed.
		fmt.Println(len(b.Seeds), "seeds,", len(b.Blocks), "blocks, X", b.X.Shape(),
			"last block", b.Blocks[1].Graph.NumNodes(), "destinations")
	}
	// Output:
	// NeighborLoader(seeds=10, batch=4, fanouts=[5 5], shuffle=true, batches=3)
	// 4 seeds, 2 blocks, X [114 8] last block 4 destinations
	// 4 seeds, 2 blocks, X [100 8] last block 4 destinations
	// 2 seeds, 2 blocks, X [65 8] last block 2 destinations
}
