// Package memprofile marks the phases of a command for benchmarks: with
// ZKM_MEMPROFILE=DIR each phase leaves a heap profile and a line of memory
// figures, with ZKM_CPUPROFILE=FILE the whole command a CPU profile. Unset,
// it costs nothing.
package memprofile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"
)

// Memory profiles per phase, for benchmarks: with ZKM_MEMPROFILE=DIR each
// phase of a command (reading the source, the target, planning, saving,
// rendering; sync: its first round and every reconciliation) ends with a
// line on stderr — when it ended (since the process started), the heap it
// leaves live, the process's peak and current RSS, the heap the runtime
// holds from the system, goroutine stacks and count — and a heap profile DIR/NN-phase.pprof
// (`go tool pprof -sample_index=inuse_space -top FILE` shows where the bytes
// are; -sample_index=alloc_space where they went). Unset, it costs nothing.
var memProfile = struct {
	sync.Mutex
	dir   string
	n     int
	w     io.Writer
	start time.Time
}{dir: os.Getenv("ZKM_MEMPROFILE"), w: os.Stderr, start: time.Now()}

// Phase marks the end of a phase.
func Phase(name string) {
	mp := &memProfile
	if mp.dir == "" {
		return
	}
	mp.Lock()
	defer mp.Unlock()
	mp.n++
	at := time.Since(mp.start)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	file := filepath.Join(mp.dir, fmt.Sprintf("%02d-%s.pprof", mp.n, name))
	if f, err := os.Create(file); err == nil {
		_ = pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
	fmt.Fprintf(mp.w, "memprofile %02d-%-8s at %5.2f s: live heap %6.1f MiB, allocated so far %6.0f MiB, peak RSS %6.1f MiB, RSS %6.1f MiB, heap held %6.1f MiB, stacks %5.1f MiB, %d goroutines (%s)\n",
		mp.n, name, at.Seconds(), mib(ms.HeapAlloc), mib(ms.TotalAlloc), float64(peakRSSKB())/1024, float64(statusKB("VmRSS:"))/1024,
		mib(ms.HeapInuse+ms.HeapIdle-ms.HeapReleased), mib(ms.StackInuse), runtime.NumGoroutine(), file)
}

// StartCPU, with ZKM_CPUPROFILE=FILE, profiles the CPU of the whole
// command into FILE (`go tool pprof -top FILE`), for benchmarks; the
// returned func ends the profile. Unset, it costs nothing.
func StartCPU() (stop func()) {
	file := os.Getenv("ZKM_CPUPROFILE")
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cpuprofile: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "cpuprofile: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// peakRSSKB is VmHWM from /proc/self/status (0 where there is none).
func peakRSSKB() int64 { return statusKB("VmHWM:") }

// statusKB is a kB field of /proc/self/status (0 where there is none).
func statusKB(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(key)); ok {
			n, _ := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			return n
		}
	}
	return 0
}
