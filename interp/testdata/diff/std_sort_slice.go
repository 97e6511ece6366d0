package main

import (
	"fmt"
	"sort"
)

type byLen []string

func (b byLen) Len() int           { return len(b) }
func (b byLen) Less(i, j int) bool { return len(b[i]) < len(b[j]) }
func (b byLen) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func main() {
	words := []string{"banana", "kiwi", "apple", "fig", "cherry"}
	sort.Slice(words, func(i, j int) bool { return words[i] < words[j] })
	fmt.Println(words)
	sort.SliceStable(words, func(i, j int) bool { return len(words[i]) < len(words[j]) })
	fmt.Println(words)
	w2 := []string{"ccc", "a", "bb"}
	sort.Sort(byLen(w2))
	fmt.Println(w2)
	sort.Sort(sort.Reverse(byLen(w2)))
	fmt.Println(w2)
	nums := []int{1, 3, 5, 7, 9}
	fmt.Println(sort.SearchInts(nums, 5), sort.SearchInts(nums, 6))
	i := sort.Search(len(nums), func(i int) bool { return nums[i] >= 8 })
	fmt.Println(i)
	fs := []float64{2.5, -1, 3}
	sort.Float64s(fs)
	fmt.Println(fs, sort.Float64sAreSorted(fs))
}
