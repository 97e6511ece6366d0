package dist

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// group starts n ranks of a kind ("local" or "tcp") and runs fn on each,
// returning the ranks' errors.
func group(t *testing.T, kind string, n int, fn func(c Communicator) error) []error {
	t.Helper()
	errs := make([]error, n)
	var cs []Communicator
	switch kind {
	case "local":
		var err error
		if cs, err = NewLocal(n); err != nil {
			t.Fatal(err)
		}
	case "tcp":
		cs = tcpGroup(t, n, TCPOptions{Timeout: 20 * time.Second})
	}
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			errs[i] = fn(c)
		}()
	}
	wg.Wait()
	return errs
}

// freeAddr returns a loopback address with a port free now.
func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// tcpGroup connects n TCP ranks on loopback, one goroutine each. The
// port freeAddr found free may be taken before rank 0 binds it (by
// another process, or by a rank's own outgoing connection, whose local
// port comes from the same range): then the group is tried again on
// another port, at most three times.
func tcpGroup(t testing.TB, n int, o TCPOptions) []Communicator {
	for try := 1; ; try++ {
		addr := freeAddr(t)
		cs := make([]Communicator, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for r := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cs[r], errs[r] = ConnectTCP(addr, r, n, o)
			}()
		}
		wg.Wait()
		err := errors.Join(errs...)
		if err == nil {
			return cs
		}
		if !errors.Is(errs[0], syscall.EADDRINUSE) || try == 3 {
			t.Fatal(err)
		}
		t.Logf("rank 0 could not bind %s, trying another port: %v", addr, errs[0])
		for _, c := range cs {
			if c != nil {
				c.Close()
			}
		}
	}
}

// rankData returns rank r's test buffer of n values.
func rankData(r, n int) []float32 {
	rng := rand.New(rand.NewPCG(uint64(r), 7))
	b := make([]float32, n)
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	return b
}

func TestAllReduce(t *testing.T) {
	for _, kind := range []string{"local", "tcp"} {
		for _, n := range []int{1, 2, 3, 4} {
			for _, size := range []int{0, 1, 3, 1000} {
				for _, op := range []Op{Sum, Mean} {
					t.Run(fmt.Sprintf("%s/ranks=%d/len=%d/%v", kind, n, size, op), func(t *testing.T) {
						want := make([]float64, size)
						for r := range n {
							for i, v := range rankData(r, size) {
								want[i] += float64(v)
							}
						}
						if op == Mean {
							for i := range want {
								want[i] /= float64(n)
							}
						}
						got := make([][]float32, n)
						errs := group(t, kind, n, func(c Communicator) error {
							b := rankData(c.Rank(), size)
							got[c.Rank()] = b
							return c.AllReduce(b, op)
						})
						if err := errors.Join(errs...); err != nil {
							t.Fatal(err)
						}
						for r := range n {
							for i, v := range got[r] {
								if d := float64(v) - want[i]; d > 1e-5 || d < -1e-5 {
									t.Fatalf("rank %d: value %d = %v, want %v", r, i, v, want[i])
								}
								if v != got[0][i] {
									t.Fatalf("rank %d: value %d = %v, rank 0 has %v (ranks must get the same bits)", r, i, v, got[0][i])
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestAllReduceReproducible checks that repeated all-reduces of the same
// inputs give the same bits.
func TestAllReduceReproducible(t *testing.T) {
	const n, size = 4, 4099
	var first []float32
	for run := range 5 {
		var got []float32
		errs := group(t, "local", n, func(c Communicator) error {
			b := rankData(c.Rank(), size)
			err := c.AllReduce(b, Sum)
			if c.Rank() == 0 {
				got = b
			}
			return err
		})
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = got
			continue
		}
		for i := range got {
			if got[i] != first[i] {
				t.Fatalf("run %d: value %d = %v, first run %v", run, i, got[i], first[i])
			}
		}
	}
}

func TestBroadcastBarrier(t *testing.T) {
	for _, kind := range []string{"local", "tcp"} {
		for _, n := range []int{1, 2, 3} {
			for _, size := range []int{0, 5, broadcastPiece + 3} {
				t.Run(fmt.Sprintf("%s/ranks=%d/len=%d", kind, n, size), func(t *testing.T) {
					root := n - 1
					errs := group(t, kind, n, func(c Communicator) error {
						b := rankData(c.Rank(), size)
						if err := c.Broadcast(b, root); err != nil {
							return err
						}
						want := rankData(root, size)
						for i := range b {
							if b[i] != want[i] {
								return fmt.Errorf("rank %d: value %d = %v, want root's %v", c.Rank(), i, b[i], want[i])
							}
						}
						return c.Barrier()
					})
					if err := errors.Join(errs...); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestMismatch checks that ranks calling with different lengths or
// different calls fail with ErrMismatch instead of exchanging garbage.
func TestMismatch(t *testing.T) {
	for _, kind := range []string{"local", "tcp"} {
		t.Run(kind, func(t *testing.T) {
			errs := group(t, kind, 2, func(c Communicator) error {
				return c.AllReduce(make([]float32, 10+c.Rank()), Sum)
			})
			for r, err := range errs {
				if !errors.Is(err, ErrMismatch) && !(kind == "tcp" && errors.Is(err, ErrClosed)) {
					t.Errorf("rank %d: AllReduce of different lengths: %v, want ErrMismatch", r, err)
				}
			}
			if !errors.Is(errs[0], ErrMismatch) && !errors.Is(errs[1], ErrMismatch) {
				t.Errorf("no rank reported ErrMismatch: %v", errs)
			}
			errs = group(t, kind, 2, func(c Communicator) error {
				if c.Rank() == 0 {
					return c.Broadcast(make([]float32, 4), 0)
				}
				return c.AllReduce(make([]float32, 4), Sum)
			})
			if !errors.Is(errs[0], ErrMismatch) && !errors.Is(errs[1], ErrMismatch) {
				t.Errorf("Broadcast against AllReduce: %v, want ErrMismatch", errs)
			}
		})
	}
}

// TestLeftGroup checks that a rank that closes makes the others' calls
// fail rather than wait for ever.
func TestLeftGroup(t *testing.T) {
	errs := group(t, "local", 3, func(c Communicator) error {
		if c.Rank() == 1 {
			return nil // leaves (group closes it) without calling
		}
		return c.AllReduce(make([]float32, 8), Sum)
	})
	for _, r := range []int{0, 2} {
		if !errors.Is(errs[r], ErrClosed) {
			t.Errorf("rank %d: %v, want ErrClosed", r, errs[r])
		}
	}
	cs, _ := NewLocal(1)
	cs[0].Close()
	if err := cs[0].Barrier(); !errors.Is(err, ErrClosed) {
		t.Errorf("Barrier after Close: %v, want ErrClosed", err)
	}
}

func TestSpawn(t *testing.T) {
	err := Spawn(3, func(c Communicator) error {
		if c.Rank() == 2 {
			panic("boom")
		}
		return c.Barrier()
	})
	if err == nil {
		t.Fatal("Spawn with a panicking rank returned nil")
	}
	if errors.Is(err, ErrClosed) {
		t.Errorf("Spawn = %v: the panic's error should be reported, not the others' ErrClosed", err)
	}
	if err := Spawn(2, func(c Communicator) error { return c.Barrier() }); err != nil {
		t.Errorf("Spawn of a barrier: %v", err)
	}
}

func TestTCPTimeoutAndRefused(t *testing.T) {
	addr := freeAddr(t) // nobody listens there
	_, err := ConnectTCP(addr, 1, 2, TCPOptions{Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("rank 1 without rank 0: %v, want ErrTimeout", err)
	}
	_, err = ConnectTCP(addr, 0, 2, TCPOptions{Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("rank 0 without rank 1: %v, want ErrTimeout", err)
	}
	// A collective call that the other rank never makes times out.
	cs := tcpGroup(t, 2, TCPOptions{Timeout: 300 * time.Millisecond})
	defer cs[0].Close()
	defer cs[1].Close()
	if err := cs[0].AllReduce(make([]float32, 4), Sum); !errors.Is(err, ErrTimeout) {
		t.Errorf("AllReduce alone: %v, want ErrTimeout", err)
	}
}

func TestTCPWrongSize(t *testing.T) {
	addr := freeAddr(t)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r, size := range []int{2, 3} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[r] = ConnectTCP(addr, r, size, TCPOptions{Timeout: 5 * time.Second})
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if !errors.Is(err, ErrMismatch) {
			t.Errorf("rank %d of a group started with sizes 2 and 3: %v, want ErrMismatch", r, err)
		}
	}
}

func TestExchangeID(t *testing.T) {
	addr := freeAddr(t)
	id := make([]byte, 128)
	for i := range id {
		id[i] = byte(i * 7)
	}
	got := make([][]byte, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := []byte("ignored")
			if r == 0 {
				mine = id
			}
			got[r], errs[r] = ExchangeID(addr, r, 3, mine, TCPOptions{Timeout: 10 * time.Second})
		}()
	}
	wg.Wait()
	for r := range 3 {
		if errs[r] != nil {
			t.Fatalf("rank %d: %v", r, errs[r])
		}
		if string(got[r]) != string(id) {
			t.Errorf("rank %d got id %x, want %x", r, got[r], id)
		}
	}
}

// TestConnectTCPAddrInUse: rank 0 on a port another listener holds fails
// at once with an error that names the address and wraps EADDRINUSE,
// which tcpGroup's retry relies on.
func TestConnectTCPAddrInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	c, err := ConnectTCP(addr, 0, 2, TCPOptions{})
	if err == nil {
		c.Close()
		t.Fatalf("ConnectTCP on %s, which another listener holds, succeeded", addr)
	}
	if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("ConnectTCP on a taken port: %v, want an error naming %s and wrapping EADDRINUSE", err, addr)
	}
}
