package compiled

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// madvPageout is MADV_PAGEOUT (Linux 5.4 and later): reclaim the pages
// of a range now. Clean file pages are dropped and read again from the
// file when touched; dirty private pages (relocations) are kept, or go
// to swap where there is one; nothing is lost, unlike MADV_DONTNEED,
// which would discard a private mapping's relocated pages.
const madvPageout = 21

// realPath is the name /proc/self/maps will give the file at path.
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return path
}

// dropPages asks the kernel to reclaim the pages of the read-only and
// executable mappings of the files (plugins loaded: their
// text, read-only data and pclntab, which the dynamic loader and the Go
// runtime read while loading it, and which would otherwise stay
// resident for as long as the process runs). Writable mappings (the
// plugin's variables and its relocated data) are left alone. Pages that
// are needed later fault back in from the file: a mapping keeps the
// file's inode, even after the file is removed. It returns the bytes
// advised; on a kernel without MADV_PAGEOUT it does nothing.
func dropPages(files map[string]bool) (advised uintptr) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path (which may hold spaces)
		line := sc.Text()
		fs := strings.Fields(line)
		line = strings.TrimSuffix(line, " (deleted)") // once the file is removed
		i := strings.Index(line, " /")
		if len(fs) < 6 || i < 0 || !files[line[i+1:]] || len(fs[1]) < 4 || fs[1][1] == 'w' {
			continue
		}
		lo, hi, ok := strings.Cut(fs[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), madvPageout)
		if errno != 0 {
			return advised // EINVAL: a kernel before 5.4
		}
		advised += uintptr(end - start)
	}
	return advised
}
