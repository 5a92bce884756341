//go:build !unix

package minilm

import "time"

func cpuTime() time.Duration { return 0 }
