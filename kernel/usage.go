package kernel

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is the unit of the CPU times in /proc/<pid>/stat (USER_HZ,
// 100 on every Linux architecture Go supports).
const clockTicks = 100

// usageSampler answers usage_request, the message of jupyter-resource-usage,
// as ipykernel 7 does: memory and CPU of the kernel and its worker (the
// process tree under the kernel), and of the host. CPU percentages are
// over the time since the previous request, as psutil's cpu_percent; the
// first request has no host_cpu_percent and a kernel_cpu of 0. Without
// /proc (not Linux) it reports what Go knows: hostname, pid, cpu_count.
type usageSampler struct {
	mu       sync.Mutex
	at       time.Time
	procCPU  map[int]uint64 // ticks by pid at the last request
	hostBusy uint64
	hostAll  uint64
}

func (k *Kernel) usage(r request) {
	k.reply(r, "usage_reply", k.usageStats.sample())
}

func (u *usageSampler) sample() map[string]any {
	host, _ := os.Hostname()
	pid := os.Getpid()
	reply := map[string]any{"hostname": host, "pid": pid, "cpu_count": runtime.NumCPU()}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return reply
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	now := time.Now()
	elapsed := now.Sub(u.at).Seconds()
	pids := append([]int{pid}, descendants(pid)...)
	var mem uint64
	var cpu float64
	ticks := map[int]uint64{}
	for _, p := range pids {
		mem += procMemory(p)
		t, ok := procTicks(p)
		if !ok {
			continue
		}
		ticks[p] = t
		if last, seen := u.procCPU[p]; seen && !u.at.IsZero() && elapsed > 0 && t >= last {
			cpu += float64(t-last) / clockTicks / elapsed * 100
		}
	}
	reply["kernel_memory"] = mem
	reply["kernel_cpu"] = cpu
	if busy, all, ok := hostTicks(); ok {
		if all > u.hostAll && u.hostAll != 0 {
			reply["host_cpu_percent"] = float64(busy-u.hostBusy) / float64(all-u.hostAll) * 100
		}
		u.hostBusy, u.hostAll = busy, all
	}
	if vm := virtualMemory(); vm != nil {
		reply["host_virtual_memory"] = vm
	}
	u.at, u.procCPU = now, ticks
	return reply
}

// statFields returns the fields of /proc/<pid>/stat after the command
// name (field 3, the state, is index 0).
func statFields(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// descendants lists the processes under pid (the worker and what it
// started), by their parent in /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(p); len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// procTicks is the user plus system CPU time of pid.
func procTicks(pid int) (uint64, bool) {
	f := statFields(pid)
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	return ut + st, err1 == nil && err2 == nil
}

// procMemory is pid's proportional set size (what psutil's
// memory_full_info().pss is, and ipykernel sums), else its resident set.
func procMemory(pid int) uint64 {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	if m := kBField(filepath.Join(dir, "smaps_rollup"), "Pss:"); m > 0 {
		return m
	}
	return kBField(filepath.Join(dir, "status"), "VmRSS:")
}

// kBField reads "Name: N kB" from a /proc file, in bytes.
func kBField(file, name string) uint64 {
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name); ok {
			fs := strings.Fields(rest)
			if len(fs) > 0 {
				n, _ := strconv.ParseUint(fs[0], 10, 64)
				return n * 1024
			}
		}
	}
	return 0
}

// hostTicks returns the busy and total CPU time of the host.
func hostTicks() (busy, all uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, false
	}
	for i, s := range f[1:] {
		n, _ := strconv.ParseUint(s, 10, 64)
		all += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, all, true
}

// virtualMemory is psutil's virtual_memory() from /proc/meminfo, in bytes.
func virtualMemory() map[string]any {
	get := func(name string) uint64 { return kBField("/proc/meminfo", name+":") }
	total := get("MemTotal")
	if total == 0 {
		return nil
	}
	free, avail := get("MemFree"), get("MemAvailable")
	buffers, cached := get("Buffers"), get("Cached")+get("SReclaimable")
	used := total - free - buffers - cached
	if total < free+buffers+cached {
		used = total - free
	}
	return map[string]any{
		"total": total, "available": avail, "percent": float64(total-avail) / float64(total) * 100,
		"used": used, "free": free, "active": get("Active"), "inactive": get("Inactive"),
		"buffers": buffers, "cached": cached, "shared": get("Shmem"), "slab": get("Slab"),
	}
}
