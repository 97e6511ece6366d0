package compiled

import "syscall"

// onTmpfs reports whether dir is on a tmpfs (memory, not a disk).
func onTmpfs(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	const tmpfsMagic = 0x01021994
	return st.Type == tmpfsMagic
}
