package dist

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
)

// NCCLEnv names the environment variable that gives the NCCL library's
// path (a file, or a directory holding libnccl.so.2).
const NCCLEnv = "GNNLAB_NCCL"

// ErrNoNCCL is wrapped by the errors of the NCCL functions when the NCCL
// library cannot be loaded (none found, or one without the calls this
// package needs) or the binary was built without the cuda tag.
var ErrNoNCCL = errors.New("dist: NCCL is not available")

// ncclCandidates lists the libraries the NCCL loader tries, in order:
// only the path in GNNLAB_NCCL when it is set; otherwise the libnccl.so.2
// that PyTorch's wheels install (site-packages/nvidia/nccl/lib) in the
// active virtual environment or conda environment, in a .venv of the
// working directory or one above it, in the user's and the system's
// Python directories, and last the bare name, which the dynamic loader
// looks up (LD_LIBRARY_PATH, the ldconfig cache: a system libnccl).
func ncclCandidates() []string {
	if p := os.Getenv(NCCLEnv); p != "" {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p = filepath.Join(p, "libnccl.so.2")
		}
		return []string{p}
	}
	var roots []string
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if r := os.Getenv(env); r != "" {
			roots = append(roots, r)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			roots = append(roots, filepath.Join(d, ".venv"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".local"))
	}
	roots = append(roots, "/usr/local", "/usr", "/opt/conda")
	var out []string
	for _, r := range roots {
		for _, pat := range []string{
			"lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
			"lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
			"lib64/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
		} {
			m, _ := filepath.Glob(filepath.Join(r, pat))
			slices.Sort(m)
			slices.Reverse(m) // the newest Python first
			for _, p := range m {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return append(out, "libnccl.so.2")
}
