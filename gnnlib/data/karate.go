package data

import (
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// karateEdges are the 78 friendships of Zachary's karate club (1977),
// numbered from 0 as networkx's karate_club_graph numbers them, each pair
// listed once with the smaller id first.
var karateEdges = [][2]int{
	{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}, {0, 10}, {0, 11},
	{0, 12}, {0, 13}, {0, 17}, {0, 19}, {0, 21}, {0, 31},
	{1, 2}, {1, 3}, {1, 7}, {1, 13}, {1, 17}, {1, 19}, {1, 21}, {1, 30},
	{2, 3}, {2, 7}, {2, 8}, {2, 9}, {2, 13}, {2, 27}, {2, 28}, {2, 32},
	{3, 7}, {3, 12}, {3, 13},
	{4, 6}, {4, 10},
	{5, 6}, {5, 10}, {5, 16},
	{6, 16},
	{8, 30}, {8, 32}, {8, 33},
	{9, 33},
	{13, 33},
	{14, 32}, {14, 33},
	{15, 32}, {15, 33},
	{18, 32}, {18, 33},
	{19, 33},
	{20, 32}, {20, 33},
	{22, 32}, {22, 33},
	{23, 25}, {23, 27}, {23, 29}, {23, 32}, {23, 33},
	{24, 25}, {24, 27}, {24, 31},
	{25, 31},
	{26, 29}, {26, 33},
	{27, 33},
	{28, 31}, {28, 33},
	{29, 32}, {29, 33},
	{30, 32}, {30, 33},
	{31, 32}, {31, 33},
	{32, 33},
}

// karateOfficer marks the members who followed the club's officer (John A.)
// after the split, networkx's "club" attribute "Officer"; the others, node
// 8 included, followed the instructor Mr. Hi.
var karateOfficer = []int{9, 14, 15, 18, 20, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33}

// KarateClub returns Zachary's karate club: 34 members, 78 friendships
// stored in both directions (156 edges), and the faction each member joined
// after the club split (0: Mr. Hi, node 0; 1: the officer, node 33), 17
// each. Features are one-hot node ids (a dense 34×34 identity), as in PyG.
// TrainIdx holds four labelled members, the two leaders and one follower
// of each (0, 1, 32, 33); TestIdx holds the other 30; ValIdx is empty.
func KarateClub() *Dataset {
	const n = 34
	var src, dst []int
	for _, e := range karateEdges {
		src, dst = append(src, e[0]), append(dst, e[1])
	}
	g, err := graph.FromEdges(n, src, dst)
	if err != nil {
		panic(err) // the table above is fixed and valid
	}
	y := make([]int, n)
	for _, v := range karateOfficer {
		y[v] = 1
	}
	train := []int{0, 1, 32, 33}
	var test []int
	for v := 2; v < 32; v++ {
		test = append(test, v)
	}
	return &Dataset{
		Name:       "karate",
		Graph:      g.ToUndirected(),
		X:          tensor.Eye(n),
		Y:          y,
		TrainIdx:   train,
		TestIdx:    test,
		numClasses: 2,
	}
}
