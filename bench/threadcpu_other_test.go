//go:build !linux

package bench

import "time"

// threadCPU is not measured outside Linux: the rows report ns/op only.
func threadCPU() time.Duration { return 0 }
