package memprofile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// ZKM_CPUPROFILE=FILE leaves a CPU profile (gzipped protobuf, as pprof
// writes it) in FILE when the returned func runs; unset, nothing is written.
func TestStartCPUProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cpu.pprof")
	t.Setenv("ZKM_CPUPROFILE", "")
	StartCPU()()
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("unset: %v", err)
	}
	t.Setenv("ZKM_CPUPROFILE", file)
	stop := StartCPU()
	x := 0
	for i := range 1_000_000 {
		x += i % 7
	}
	_ = x
	stop()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Fatalf("profile %s: not gzip (%d bytes)", file, len(b))
	}
}
