package dist_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/dist"
)

// Two in-process ranks sum their buffers; every rank gets the result.
func Example() {
	sums := make([][]float32, 2)
	err := dist.Spawn(2, func(c dist.Communicator) error {
		buf := []float32{float32(c.Rank() + 1), 10, -1}
		if err := c.AllReduce(buf, dist.Sum); err != nil {
			return err
		}
		sums[c.Rank()] = buf
		return nil
	})
	fmt.Println(sums, err)
	// Output: [[3 20 -2] [3 20 -2]] <nil>
}

// ShardSeeds deals the seed nodes out to the ranks, every Size()-th one.
func ExampleShardSeeds() {
	seeds := []int{0, 1, 2, 3, 4, 5, 6}
	fmt.Println(dist.ShardSeeds(seeds, 0, 2), dist.ShardSeeds(seeds, 1, 2))
	// Output: [0 2 4] [1 3 5]
}
