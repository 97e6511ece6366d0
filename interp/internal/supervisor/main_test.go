package supervisor

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// The test binary doubles as a worker process: with GNNLAB_TEST_WORKER set
// it runs fakeWorker, a protocol speaker
// whose cells are commands, so that the supervisor can be tested against
// real Go runtime crashes without the interpreter.
func TestMain(m *testing.M) {
	switch os.Getenv("GNNLAB_TEST_WORKER") {
	case "":
		os.Exit(m.Run())
	case "fake":
		fakeWorker()
		os.Exit(0)
	}
}

// fakeWorker answers execute requests whose code is one command:
//
//	print TEXT      write TEXT to stdout and "e:"+TEXT to stderr
//	exit N          os.Exit(N)
//	goroutine-panic panic in a new goroutine
//	recurse         infinite recursion
//	recurse-cell    infinite recursion in code placed at cell 3's lines 2-6
//	map-writes      concurrent map writes
//	hang            never answer, ignoring SIGINT
//	display TEXT    print TEXT, then send a display event
func fakeWorker() {
	reqs, events := os.NewFile(3, "requests"), os.NewFile(4, "events")
	var sync uint64
	send := func(ev workerproto.Event, synced bool) {
		if synced {
			sync++
			m := workerproto.SyncMark(sync)
			os.Stdout.WriteString(m)
			os.Stderr.WriteString(m)
			ev.Sync = sync
		}
		if err := workerproto.WriteFrame(events, ev); err != nil {
			os.Exit(9)
		}
	}
	send(workerproto.Event{Kind: workerproto.EvReady, Text: "fake"}, false)
	for {
		var req workerproto.Request
		if err := workerproto.ReadFrame(reqs, &req); err != nil {
			return
		}
		if req.Op == workerproto.OpShutdown {
			send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone}, false)
			return
		}
		if req.Op != workerproto.OpExecute {
			continue
		}
		cmd, arg, _ := strings.Cut(req.Code, " ")
		switch cmd {
		case "print":
			fmt.Print(arg)
			fmt.Fprint(os.Stderr, "e:"+arg)
		case "display":
			fmt.Print(arg)
			send(workerproto.Event{ID: req.ID, Kind: workerproto.EvClearOutput}, true)
		case "exit":
			n, _ := strconv.Atoi(arg)
			os.Exit(n)
		case "goroutine-panic":
			go func() { panic("boom") }()
			time.Sleep(time.Minute)
		case "recurse":
			// A small stack limit overflows in milliseconds; at the
			// default 1 GB the growth took seconds on a loaded machine,
			// past execute's timeout.
			debug.SetMaxStack(32 << 20)
			var f func(int) int
			f = func(n int) int { return f(n+1) + 1 }
			f(0)
		case "recurse-cell":
			debug.SetMaxStack(32 << 20)
			fmt.Println(cellDown(0))
		case "map-writes":
			m := map[int]int{}
			for i := range 4 {
				go func() {
					for j := 0; ; j++ {
						m[j%100] = i
					}
				}()
			}
			time.Sleep(time.Minute)
		case "hang":
			signalIgnoreInterrupt()
			time.Sleep(time.Minute)
		}
		send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone}, true)
	}
}
