package data_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/data"
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
