//go:build !linux

package compiled

// onTmpfs reports whether dir is on a tmpfs; only Linux is asked.
func onTmpfs(dir string) bool { return false }
