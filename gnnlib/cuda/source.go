package cuda

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// kernelFS holds the CUDA C sources that kernels/gnn.ptx is compiled
// from, so that a notebook can show the code the GPU runs.
//
//go:embed kernels/*.cu kernels/*.cuh
var kernelFS embed.FS

// ErrNoSource is wrapped by the error KernelSource returns for a name that
// is neither a source file nor a function defined in one.
var ErrNoSource = errors.New("gnnlib/cuda: no such kernel source")

// KernelFiles returns the names of the CUDA C sources under kernels/
// (spmm.cu, gatv2.cu, common.cuh, ...), sorted.
func KernelFiles() []string {
	entries, _ := fs.ReadDir(kernelFS, "kernels") // embedded: cannot fail
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

// KernelSource returns CUDA C source that the embedded PTX was compiled
// from. Given a file name of KernelFiles ("spmm.cu") it returns the whole
// file; given the name of a function defined in one (a kernel such as
// "spmm_vec4", or a device function such as "gatv2_fwd_body") it returns
// that definition with the comment lines and the template line just
// above it. Kernels that a macro defines (gatv2_fwd_c64 and its
// siblings) are found under the name of the body they expand, not their
// own.
func KernelSource(name string) (string, error) {
	files := KernelFiles()
	for _, f := range files {
		if f == name {
			b, err := kernelFS.ReadFile("kernels/" + f)
			return string(b), err
		}
	}
	for _, f := range files {
		if !isIdent(name) {
			break
		}
		b, err := kernelFS.ReadFile("kernels/" + f)
		if err != nil {
			return "", err
		}
		if src, ok := definition(string(b), name); ok {
			return src, nil
		}
	}
	return "", fmt.Errorf("%w: %q is neither a file of kernels/ (%s) nor a function defined in one", ErrNoSource, name, strings.Join(files, ", "))
}

// definition finds the function name defined in src: the line at the
// top level (outside any braces) that declares it ("... name(" after its
// qualifiers and return type), back over the template and comment lines
// before it, and on to the brace that closes its body.
func definition(src, name string) (string, bool) {
	lines := strings.SplitAfter(src, "\n")
	start, depth := -1, 0
	for i, l := range lines {
		code, _, _ := strings.Cut(l, "//")
		if t := strings.TrimSpace(code); depth == 0 && !strings.HasPrefix(t, "#") {
			if k := strings.Index(t, " "+name+"("); k >= 0 && !strings.ContainsAny(t[:k], "(=;") {
				start = i
				break
			}
		}
		depth += strings.Count(code, "{") - strings.Count(code, "}")
	}
	if start < 0 {
		return "", false
	}
	first := start
	for first > 0 {
		t := strings.TrimSpace(lines[first-1])
		if !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "template") {
			break
		}
		first--
	}
	depth = 0
	opened := false
	for i := start; i < len(lines); i++ {
		code, _, _ := strings.Cut(lines[i], "//")
		depth += strings.Count(code, "{") - strings.Count(code, "}")
		opened = opened || strings.Contains(code, "{")
		if opened && depth == 0 {
			return strings.Join(lines[first:i+1], ""), true
		}
	}
	return "", false
}

// isIdent reports whether s is a C identifier.
func isIdent(s string) bool {
	for i, r := range s {
		if r != '_' && !('a' <= r && r <= 'z') && !('A' <= r && r <= 'Z') && !(i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}
