package graph_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

func ExampleFromEdges() {
	// PyG's edge_index [[0, 1, 1, 2], [1, 0, 2, 1]]: the path 0 - 1 - 2.
	g, err := graph.FromEdges(3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(g)
	fmt.Println("in-neighbours of 1:", g.Neighbors(1))
	_, err = graph.FromEdges(3, []int{0, 5}, []int{1, 1})
	fmt.Println(err)
	// Output:
	// Graph(nodes=3, edges=4)
	// in-neighbours of 1: [0 2]
	// graph: edge 1 (5→1) with 3 nodes: graph: edge endpoint out of range
}

func ExampleGraph_RCM() {
	g, _ := graph.ErdosRenyi(400, 0.01, 1)
	r, _ := g.Permute(g.RCM())
	fmt.Printf("mean edge span %.0f -> %.0f\n", g.EdgeSpan(), r.EdgeSpan())
	// Output:
	// mean edge span 129 -> 83
}

func ExampleHeteroGraph() {
	h := graph.NewHeteroGraph()
	h.AddNodes("paper", 3, nil, 0)
	h.AddNodes("author", 2, nil, 0)
	writes := graph.EdgeType{Src: "author", Rel: "writes", Dst: "paper"}
	if err := h.AddEdges(writes, []int{0, 1, 1}, []int{0, 0, 2}); err != nil {
		panic(err)
	}
	fmt.Println(h)
	fmt.Println("authors of paper 0:", h.Relation(writes).Neighbors(0))
	// Output:
	// HeteroGraph(nodes={paper: 3, author: 2}, edges={(author, writes, paper): 3})
	// authors of paper 0: [0 1]
}

func ExampleTypedSBM() {
	h, y, err := graph.TypedSBM(graph.TypedSBMOptions{
		NodeTypes: []string{"paper", "author"}, Sizes: []int{60, 30}, Classes: 3,
		Relations: []graph.EdgeType{{Src: "author", Rel: "writes", Dst: "paper"}},
		PIn:       0.2, POut: 0.01, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(h.NodeTypes(), h.NumNodes("paper"), "papers, classes of the first and last:", y["paper"][0], y["paper"][59])
	// Output:
	// [paper author] 60 papers, classes of the first and last: 0 2
}

func ExampleBAShapes() {
	g, labels, inMotif, err := graph.BAShapes(graph.BAShapesOptions{Seed: 1}) // the paper's sizes
	if err != nil {
		panic(err)
	}
	motif := 0
	for _, in := range inMotif {
		if in {
			motif++
		}
	}
	fmt.Println(g.NumNodes(), "nodes; house nodes 300–304 have labels", labels[300:305], "and", motif/2, "house edges")
	// Output:
	// 700 nodes; house nodes 300–304 have labels [1 1 2 2 3] and 480 house edges
}
