package bench

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestMain prints the context lines cmd/ratios puts in RESULTS.md.
func TestMain(m *testing.M) {
	fmt.Printf("backend: %s\ngo: %s\ncores: %d\n", zlua.Backend, runtime.Version(), runtime.NumCPU())
	os.Exit(m.Run())
}
