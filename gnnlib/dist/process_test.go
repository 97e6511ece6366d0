package dist

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary a TCP rank (TestTCPChild) instead of
// running the tests.
const childEnv = "GNNLAB_DIST_TEST_RANK"

// TestTwoProcesses all-reduces and broadcasts between this process (rank
// 0) and a second process, the test binary run again as rank 1: the
// multi-process form, through the TCP bootstrap.
func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(exe, "-test.run=^TestTCPChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1", "GNNLAB_DIST_TEST_ADDR="+addr)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c, err := ConnectTCP(addr, 0, 2, TCPOptions{Timeout: 30 * time.Second})
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%v\nrank 1 said:\n%s", err, out.String())
	}
	buf := []float32{1, 2, 3}
	if err := c.AllReduce(buf, Sum); err != nil {
		cmd.Wait()
		t.Fatalf("%v\nrank 1 said:\n%s", err, out.String())
	}
	if got := fmt.Sprint(buf); got != "[11 22 33]" {
		t.Errorf("AllReduce with the other process = %s, want [11 22 33]", got)
	}
	if err := c.Broadcast([]float32{7, 8}, 0); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rank 1: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "rank 1 got [11 22 33] [7 8]") {
		t.Errorf("rank 1's output does not show the results:\n%s", out.String())
	}
}

// TestTCPChild is rank 1 of TestTwoProcesses; it does nothing in a normal
// test run.
func TestTCPChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("rank 1 of TestTwoProcesses only")
	}
	rank, _ := strconv.Atoi(os.Getenv(childEnv))
	c, err := ConnectTCP(os.Getenv("GNNLAB_DIST_TEST_ADDR"), rank, 2, TCPOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := []float32{10, 20, 30}
	if err := c.AllReduce(buf, Sum); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 2)
	if err := c.Broadcast(got, 0); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("rank 1 got %v %v\n", buf, got)
}
