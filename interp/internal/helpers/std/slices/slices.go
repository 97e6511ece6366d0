package slices

import SORT "sort"

type ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}

func PFXSort[E ordered](x []E) { SORT.Slice(x, func(i, j int) bool { return x[i] < x[j] }) }

func PFXSortFunc[E any](x []E, cmp func(a, b E) int) {
	SORT.Slice(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

func PFXSortStableFunc[E any](x []E, cmp func(a, b E) int) {
	SORT.SliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

func PFXIsSorted[E ordered](x []E) bool {
	for i := len(x) - 1; i > 0; i-- {
		if x[i] < x[i-1] {
			return false
		}
	}
	return true
}

func PFXMax[E ordered](x []E) E {
	if len(x) < 1 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if x[i] > m {
			m = x[i]
		}
	}
	return m
}

func PFXMin[E ordered](x []E) E {
	if len(x) < 1 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if x[i] < m {
			m = x[i]
		}
	}
	return m
}

func PFXMaxFunc[E any](x []E, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) > 0 {
			m = x[i]
		}
	}
	return m
}

func PFXMinFunc[E any](x []E, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) < 0 {
			m = x[i]
		}
	}
	return m
}

func PFXIndex[E comparable](s []E, v E) int {
	for i := range s {
		if v == s[i] {
			return i
		}
	}
	return -1
}

func PFXIndexFunc[E any](s []E, f func(E) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

func PFXContains[E comparable](s []E, v E) bool { return PFXIndex(s, v) >= 0 }

func PFXContainsFunc[E any](s []E, f func(E) bool) bool { return PFXIndexFunc(s, f) >= 0 }

func PFXEqual[E comparable](s1, s2 []E) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}

func PFXBinarySearch[E ordered](x []E, target E) (int, bool) {
	i, j := 0, len(x)
	for i < j {
		h := int(uint(i+j) >> 1)
		if x[h] < target || (x[h] != x[h] && target == target) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < len(x) && (x[i] == target || (x[i] != x[i] && target != target))
}

func PFXBinarySearchFunc[E, T any](x []E, target T, cmp func(E, T) int) (int, bool) {
	i, j := 0, len(x)
	for i < j {
		h := int(uint(i+j) >> 1)
		if cmp(x[h], target) < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < len(x) && cmp(x[i], target) == 0
}

func PFXReverse[E any](s []E) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}
