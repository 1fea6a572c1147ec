package zlua

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Some behaviours show only at process exit (buffered C stdio) or on the
// process's own stderr: the test binary runs itself as a helper process.

const helperEnv = "ZLUA_TEST_HELPER"

// helpers are the scenarios a helper process can run; each returns the
// exit code. They exit with os.Exit, which does not flush C stdio.
var helpers = map[string]func() error{
	"stdio-flush": func() error {
		e, err := New(Options{})
		if err != nil {
			return err
		}
		if err := e.DoString(`print("by print") io.write("written by io.write")`); err != nil {
			return err
		}
		return e.Close()
	},
	// print's lines reach the pipe in order with Go's writes, and before
	// an exit that skips Close (the helper's os.Exit)
	"print-order": func() error {
		e, err := New(Options{})
		if err != nil {
			return err
		}
		if err := e.DoString(`print("lua", 1)`); err != nil {
			return err
		}
		os.Stdout.WriteString("go 2\n")
		return e.DoString(`print("lua", 3)`)
	},
	"warn-stderr": func() error {
		e, err := New(Options{})
		if err != nil {
			return err
		}
		defer e.Close()
		return e.DoString(`
			warn("off by default")
			warn("@on")
			warn("joined ", "pieces")
			setmetatable({}, {__gc = function() error("boom", 0) end})
			collectgarbage()
			warn("@off")
			warn("off again")`)
	},
}

func runHelper(name string) int {
	f := helpers[name]
	if f == nil {
		fmt.Fprintf(os.Stderr, "no helper %q\n", name)
		return 2
	}
	if err := f(); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}

// runInProcess runs helper name in a new process of the test binary and
// returns its stdout and stderr.
func runInProcess(t *testing.T, name string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+name)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper %s: %v\nstderr: %s", name, err, errb.String())
	}
	return out.String(), errb.String()
}

func TestCloseFlushesStandardStreams(t *testing.T) {
	out, _ := runInProcess(t, "stdio-flush")
	if want := "by print\nwritten by io.write"; out != want {
		t.Fatalf("stdout = %q, want %q (output buffered in C stdio was lost at exit)", out, want)
	}
}

func TestPrintFlushesEachLine(t *testing.T) {
	out, _ := runInProcess(t, "print-order")
	if want := "lua\t1\ngo 2\nlua\t3\n"; out != want {
		t.Fatalf("stdout = %q, want %q (print's lines held in C stdio)", out, want)
	}
}

func TestWarningsGoToStderrLikeLua54(t *testing.T) {
	if !strings.HasPrefix(Backend, "Lua 5.4") {
		t.Skip("LuaJIT has no warnings")
	}
	_, stderr := runInProcess(t, "warn-stderr")
	want := "Lua warning: joined pieces\nLua warning: error in __gc (boom)\n"
	if stderr != want {
		t.Fatalf("stderr = %q, want %q", stderr, want)
	}
}
