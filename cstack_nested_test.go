package zlua_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// envRing makes k Envs whose Go function hop() calls into the next Env,
// by turns through each way Go enters Lua: DoString, a typed func from
// GetFunction, Function.Call, and a resume through Thread.BindResume.
// Each Env's own bound on nested Go calls never trips: the nesting is
// spread over k Envs on one thread. It returns the Envs and the number
// of hops made.
func envRing(t *testing.T, k int) ([]*zlua.Env, *int) {
	t.Helper()
	envs := make([]*zlua.Env, k)
	for i := range envs {
		envs[i] = newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe})
		run(t, envs[i], `function hop_lua() hop() end`)
	}
	hops := new(int)
	for i, e := range envs {
		next := envs[(i+1)%k]
		var typed func() error
		var fn *zlua.Function
		must(t, next.GetFunction("hop_lua", &typed))
		must(t, next.GetFunction("hop_lua", &fn))
		must(t, e.SetGlobal("hop", func() error {
			*hops++
			switch *hops % 4 {
			case 0:
				return next.DoString(`hop()`)
			case 1:
				return typed()
			case 2:
				_, err := fn.Call()
				return err
			}
			th, err := next.NewThread(fn)
			if err != nil {
				return err
			}
			defer th.Release()
			var step func() error
			if err := th.BindResume(&step); err != nil {
				return err
			}
			return step()
		}))
	}
	return envs, hops
}

// Envs calling into each other nest on one thread's C stack, each within
// its own bound: 40 of them made 2,500–3,000 nested calls and killed the
// process with SIGSEGV in the parser (Lua 5.4) or LuaJIT's interpreter
// (probe X, X1). The thread's end bounds them all: the innermost entry is
// refused with "C stack overflow", the error unwinds through every Env,
// and each stays usable. On a thread with a 2 MiB stack too.
func TestEnvsNestedIntoEachOtherStopWithCStackOverflow(t *testing.T) {
	for _, stack := range []int{0, 2 << 20} {
		t.Run(fmt.Sprintf("stack%d", stack), func(t *testing.T) {
			envs, hops := envRing(t, 150)
			var err error
			if stack == 0 {
				err = envs[0].DoString(`hop()`)
			} else if rc := zlua.OnStackOf(stack, func() { err = envs[0].DoString(`hop()`) }); rc != 0 {
				t.Fatalf("thread with a %d-byte stack: pthread error %d", stack, rc)
			}
			if err == nil || !strings.Contains(err.Error(), "C stack overflow") {
				t.Fatalf("after %d hops: err = %v, want C stack overflow", *hops, err)
			}
			if *hops < 150*4 {
				t.Errorf("refused after %d hops: the bound is not the thread's", *hops)
			}
			for i, e := range envs {
				var n int
				if err := e.Eval(`1 + 1`, &n); err != nil || n != 2 {
					t.Errorf("env %d after the overflow: %d, %v", i, n, err)
				}
			}
		})
	}
}
