//go:build !linux

package compiled

// dropPages reclaims a loaded plugin's read-only pages; only Linux does.
func dropPages(files map[string]bool) uintptr { return 0 }

func realPath(path string) string { return path }
