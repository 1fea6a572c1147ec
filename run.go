package zlua

import (
	"fmt"
	"os"
	"strings"

	"github.com/zlua-go/zlua/cgo"
)

// begin starts one API call (the caller ends it with e.g.Exit()) and
// returns the thread to use.
func (e *Env) begin() (cgo.Thread, error) {
	g := e.g
	if g.Closed() {
		return cgo.Thread{}, ErrClosed
	}
	if err := g.Enter(); err != nil {
		return cgo.Thread{}, err
	}
	return g.Current(), nil
}

// protect runs f as one API call: it tracks nesting, keeps the stack
// balanced, and turns a failed Lua status into a *LuaError.
func (e *Env) protect(f func(t cgo.Thread) int) error {
	t, err := e.begin()
	if err != nil {
		return err
	}
	g := e.g
	defer g.Exit()
	top := t.Top()
	defer t.SetTop(top)
	if st := f(t); st != cgo.OK {
		return g.ErrorFromTop(t, st)
	}
	return nil
}

// DoString runs chunk. Errors raised in Lua, including Go errors and
// panics raised by Go functions it calls, come back as *LuaError.
func (e *Env) DoString(chunk string) error {
	return e.protect(func(t cgo.Thread) int {
		return e.g.S.DoString(t, chunk, chunk, e.opts.Libs.chunkMode())
	})
}

// DoFile runs the Lua file at path (a first line starting with # is
// skipped, as lua does).
func (e *Env) DoFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("zlua: dofile: %w", err)
	}
	src := string(b)
	if strings.HasPrefix(src, "#") {
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			src = src[i:] // keep the newline so line numbers stay right
		} else {
			src = ""
		}
	}
	return e.protect(func(t cgo.Thread) int {
		return e.g.S.DoString(t, src, "@"+path, e.opts.Libs.chunkMode())
	})
}
