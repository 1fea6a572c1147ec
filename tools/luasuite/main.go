// Command luasuite runs the official Lua test suite ("testes" of a Lua
// 5.4 release) through zlua Envs, one Env per file, and, when a stock
// interpreter is given, through it too, so that the two outcomes can be
// compared file by file. zlua replaces parts of the standard library
// (coroutine functions, xpcall, debug.sethook/gethook, string patterns):
// the suite checks that scripts cannot tell.
//
//	luasuite -dir lua-5.4.4-tests -stock lua5.4 [file.lua ...]
//
// -libs safe runs the files in LibsSafe Envs (files needing io, os or
// debug then fail where they use them); -limited runs each file as a
// Function.CallContext under a one-hour deadline, so the count hook, the
// bounded pattern matcher and (LuaJIT) the compiler switched off are in
// force; -memlimit caps each Env's heap.
//
// Without file arguments it runs every *.lua file of dir except the
// drivers and the slow ones (all, main, heavy, verybig). Both run with
// _port and _soft set, as the suite's own driver does for portable runs.
// The exit status is 1 when a file passes on stock Lua and fails on zlua.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zlua-go/zlua"
)

var skipped = map[string]bool{"all.lua": true, "main.lua": true, "heavy.lua": true, "verybig.lua": true}

func main() {
	dir := flag.String("dir", ".", "directory of the suite's files")
	stock := flag.String("stock", "", "stock interpreter to compare with (e.g. lua5.4); empty: zlua only")
	libs := flag.String("libs", "all", "standard libraries of each Env: all or safe")
	flag.BoolVar(&limited, "limited", false, "run each file under a context with a one-hour deadline")
	flag.Int64Var(&opts.MemoryLimit, "memlimit", 0, "memory limit of each Env in bytes (0: none)")
	flag.Parse()
	switch *libs {
	case "all":
	case "safe":
		opts.Libs = zlua.LibsSafe
	default:
		fail(fmt.Errorf("-libs %q: want all or safe", *libs))
	}
	files := flag.Args()
	if len(files) == 0 {
		all, err := filepath.Glob(filepath.Join(*dir, "*.lua"))
		if err != nil {
			fail(err)
		}
		for _, f := range all {
			if !skipped[filepath.Base(f)] {
				files = append(files, filepath.Base(f))
			}
		}
		sort.Strings(files)
	}
	if err := os.Chdir(*dir); err != nil { // the files load each other by relative path
		fail(err)
	}
	worse := 0
	for _, f := range files {
		z, zd := runZlua(f)
		line := fmt.Sprintf("%-16s zlua: %-6s %8v", f, outcome(z), zd.Round(time.Millisecond))
		var s error
		if *stock != "" {
			var sd time.Duration
			s, sd = runStock(*stock, f)
			line += fmt.Sprintf("   %s: %-6s %8v", filepath.Base(*stock), outcome(s), sd.Round(time.Millisecond))
			if s == nil && z != nil {
				worse++
			}
		}
		if z != nil {
			line += "\n    zlua:  " + firstLine(z.Error())
		}
		if s != nil {
			line += "\n    stock: " + s.Error()
		}
		fmt.Println(line)
	}
	if worse > 0 {
		fmt.Printf("%d file(s) pass on stock Lua and fail on zlua\n", worse)
		os.Exit(1)
	}
}

// The Env options and the run mode the flags chose.
var (
	opts    zlua.Options
	limited bool
)

// runZlua runs file in a new Env made with opts: as DoFile does, or as a
// chunk called under a context when limited.
func runZlua(file string) (error, time.Duration) {
	t0 := time.Now()
	e, err := zlua.New(opts)
	if err != nil {
		return err, 0
	}
	defer e.Close()
	if err := e.DoString("_port, _soft = true, true"); err != nil {
		return err, 0
	}
	if !limited {
		err = e.DoFile(file)
		return err, time.Since(t0)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return err, 0
	}
	if bytes.HasPrefix(src, []byte("#")) { // a "#!" line: DoFile skips it, LoadString does not
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			src = src[i:]
		} else {
			src = nil
		}
	}
	f, err := e.LoadString("@"+file, string(src))
	if err != nil {
		return err, 0
	}
	defer f.Release()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err = f.CallContext(ctx)
	return err, time.Since(t0)
}

func runStock(interp, file string) (error, time.Duration) {
	t0 := time.Now()
	var stderr strings.Builder
	cmd := exec.Command(interp, "-e", "_port, _soft = true, true", file)
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, firstLine(stderr.String()))
	}
	return err, time.Since(t0)
}

func outcome(err error) string {
	if err != nil {
		return "FAIL"
	}
	return "ok"
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "luasuite:", err)
	os.Exit(2)
}
