package worker

import (
	"runtime"
	"testing"
)

func TestTotalRAM(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/meminfo")
	}
	if n := totalRAM(); n < 1<<28 {
		t.Errorf("totalRAM() = %d, want the machine's memory (at least 256 MiB)", n)
	}
}
