//go:build linux

package zlua_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// A module file that is not a regular file is refused before it is read
// (probe A1-F1): a FIFO blocked require forever and a link to /dev/zero
// read until the process ran out of memory, in Go code that neither the
// deadline nor the memory limit stops. A directory still fails as Lua's
// loader words it.
func TestRequireRefusesModulesThatAreNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo.lua"), 0o600))
	must(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.lua")))
	must(t, os.Mkdir(filepath.Join(dir, "dir.lua"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "ok.lua"), []byte("return 42"), 0o600))
	for _, limit := range []int64{0, 16 << 20} {
		e := newEnvWith(t, zlua.Options{Modules: os.DirFS(dir), Libs: zlua.LibsSafe, MemoryLimit: limit})
		for name, want := range map[string]string{
			"fifo": "cannot read fifo.lua: not a regular file",
			"zero": "cannot read zero.lua: not a regular file",
			"dir":  "cannot read dir.lua: is a directory",
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var msg string
			err := e.DoStringContext(ctx, `result = select(2, pcall(require, "`+name+`"))`)
			cancel()
			if err == nil {
				err = e.Global("result", &msg)
			}
			if err != nil || !strings.Contains(msg, "error loading module '"+name+"'") || !strings.Contains(msg, want) {
				t.Errorf("limit %d, require %q: %v %q; want %q", limit, name, err, msg, want)
			}
		}
		var v int
		must(t, e.Eval(`require("ok")`, &v))
		if v != 42 {
			t.Errorf("require(ok) = %d", v)
		}
	}
}
