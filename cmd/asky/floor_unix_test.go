//go:build unix

package main

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// coldReadFloor is the memory floor of a cold query's dense scan: map
// the vector snapshot afresh (as a new process does, so its page faults
// count) and read every byte once on two threads.
func coldReadFloor(b *testing.B, snapDir string) time.Duration {
	b.Helper()
	ms, _ := filepath.Glob(filepath.Join(snapDir, "vectors-*.snap"))
	if len(ms) != 1 {
		b.Fatalf("want one snapshot in %s, have %v", snapDir, ms)
	}
	f, err := os.Open(ms[0])
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		b.Fatal(err)
	}
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&data[0])), len(data)/8)
	const part = 1 << 17 // 1 MB of words
	var next atomic.Int64
	var sink atomic.Uint64
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s0, s1, s2, s3 uint64
			for lo := int(next.Add(part) - part); lo < len(words); lo = int(next.Add(part) - part) {
				p := words[lo:min(len(words), lo+part)]
				i := 0
				for ; i+4 <= len(p); i += 4 {
					s0 ^= p[i]
					s1 ^= p[i+1]
					s2 ^= p[i+2]
					s3 ^= p[i+3]
				}
			}
			sink.Add(s0 ^ s1 ^ s2 ^ s3)
		}()
	}
	wg.Wait()
	d := time.Since(t0)
	_ = syscall.Munmap(data)
	return d
}
