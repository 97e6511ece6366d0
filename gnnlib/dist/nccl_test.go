package dist

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestNCCLCandidates(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "venv", "lib", "python3.12", "site-packages", "nvidia", "nccl", "lib", "libnccl.so.2")
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(NCCLEnv, "")
	t.Setenv("VIRTUAL_ENV", filepath.Join(dir, "venv"))
	got := ncclCandidates()
	if len(got) < 2 || got[0] != lib || got[len(got)-1] != "libnccl.so.2" {
		t.Errorf("ncclCandidates with a wheel's NCCL in VIRTUAL_ENV = %q, want %q first and the bare name last", got, lib)
	}
	t.Setenv(NCCLEnv, filepath.Dir(lib))
	if got := ncclCandidates(); len(got) != 1 || got[0] != lib {
		t.Errorf("ncclCandidates with %s=<dir> = %q, want [%q]", NCCLEnv, got, lib)
	}
	t.Setenv(NCCLEnv, "/x/libnccl.so.2.27")
	if got := ncclCandidates(); len(got) != 1 || got[0] != "/x/libnccl.so.2.27" {
		t.Errorf("ncclCandidates with %s=<file> = %q, want only that file", NCCLEnv, got)
	}
}

// TestNoNCCL checks that a missing NCCL is an error wrapping ErrNoNCCL in
// both builds (nothing is where GNNLAB_NCCL points; the library is loaded
// once per process, so after another test loaded a real NCCL this test
// skips).
func TestNoNCCL(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libnccl.so.2")
	t.Setenv(NCCLEnv, missing)
	v, err := NCCLVersion()
	if err == nil {
		t.Skipf("NCCL %s was loaded before this test", v)
	}
	if !errors.Is(err, ErrNoNCCL) {
		t.Fatalf("NCCLVersion with %s=%s: %v, want ErrNoNCCL", NCCLEnv, missing, err)
	}
	if _, err := NewNCCLGroup(nil); !errors.Is(err, ErrNoNCCL) {
		t.Errorf("NewNCCLGroup without NCCL: %v, want ErrNoNCCL", err)
	}
}
