//go:build !race

package debug

// raceBuild is true in a binary built with -race (see racebuild_on.go).
const raceBuild = false
