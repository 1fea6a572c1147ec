package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// patternTokens are the pieces generated patterns are made of: every
// construct of the pattern language, malformed ones included.
var patternTokens = []string{
	"a", "b", "(", ")", "()", "%", "%a", "%d", "%s", "%w", "%p", "%x", "%A",
	"%S", "%z", "%.", "%%", ".", "*", "+", "-", "?", "^", "$", "[", "]",
	"[ab]", "[^a]", "[a-c]", "[%w_]", "%b()", "%bab", "%f[%w]", "%f[%W]",
	"%1", "%2", "%0", "\x00", "[]", "[^", "[%", "%f", "%b", "1", " ",
}

// subjectBytes are what generated subjects are made of.
const subjectBytes = "aab(b)a 1_.%\x00\xff"

// fuzzPatternCase turns fuzz input into a subject, a pattern, a start
// position and a replacement string, all short: with at most 6
// quantifiers, backtracking stays cheap for both implementations.
func fuzzPatternCase(data []byte) (s, p string, init int, r string) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		c := data[0]
		data = data[1:]
		return int(c)
	}
	var sb, pb, rb strings.Builder
	for n := next() % 24; n > 0; n-- {
		sb.WriteByte(subjectBytes[next()%len(subjectBytes)])
	}
	quantifiers := 0
	for n := next() % 12; n > 0; n-- {
		c := next()
		if c >= 240 { // a raw byte now and then
			pb.WriteByte(byte(next()))
			continue
		}
		tok := patternTokens[c%len(patternTokens)]
		if strings.ContainsAny(tok, "*+-?") {
			if quantifiers++; quantifiers > 6 {
				continue
			}
		}
		pb.WriteString(tok)
	}
	init = next()%40 - 20
	for n := next() % 6; n > 0; n-- {
		rb.WriteByte("x%01229a"[next()%8])
	}
	return sb.String(), pb.String(), init, rb.String()
}

// fuzzPatternLua runs one generated case through the differential
// harness: find (pattern and plain), match, gmatch and gsub with a
// string, a function and a table, both implementations. ZLUA_ONLY runs
// zlua's alone first, under a deadline: a case too slow for it would be as
// slow for the stock matcher (same search order), which nothing could
// stop, so it is skipped.
const fuzzPatternLua = `
function fuzzcase(s, p, init, r)
  both("find", ops.find, s, p, init)
  both("find plain", ops.find, s, p, init, true)
  both("match", ops.match, s, p, init)
  both("gmatch", ops.gmatch, s, p, init)
  both("gsub", ops.gsub, s, p, r)
  both("gsub n", ops.gsub, s, p, r, init)
  both("gsub fn", ops.gsub, s, p, repl.upper)
  both("gsub table", ops.gsub, s, p, { a = "A", b = false, ["1"] = 1 })
end
function zluaonly(s, p, init, r)
  pcall(string.find, s, p, init)
  pcall(string.match, s, p, init)
  pcall(function() for _ in string.gmatch(s, p) do end end)
  pcall(string.gsub, s, p, r)
end`

// FuzzPatterns compares zlua's string.find, match, gmatch and gsub with
// the backend's own on generated subjects and patterns: results, errors
// and their messages must be the same.
func FuzzPatterns(f *testing.F) {
	for _, seed := range []string{
		"\x05\x00\x01\x02\x03\x04\x03\x00\x10\x13\x02\x01\x02",
		"\x08\x01\x01\x01\x01\x01\x01\x01\x07\x04\x01\x12\x03\x11\x05\x16\x00\x03\x01\x04",
		"\x06\x03\x04\x05\x02\x01\x00\x05\x1e\x1f\x20\x21\x22\x00\x02\x03",
	} {
		f.Add([]byte(seed))
	}
	e := newPatternEnv(f)
	must(f, e.DoString(fuzzPatternLua))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, p, init, r := fuzzPatternCase(data)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		must(t, e.SetGlobal("S", s))
		must(t, e.SetGlobal("P", p))
		must(t, e.SetGlobal("I", init))
		must(t, e.SetGlobal("R", r))
		if err := e.DoStringContext(ctx, `zluaonly(S, P, I, R)`); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Skipf("too slow for a comparison: %q %q", s, p)
			}
			t.Fatalf("zlua alone: %v", err)
		}
		must(t, e.DoString(`mismatches = {} fuzzcase(S, P, I, R)`))
		if bad, _ := mismatches(t, e); len(bad) > 0 {
			t.Fatalf("subject %q pattern %q init %d repl %q:\n%s", s, p, init, r, strings.Join(bad, "\n"))
		}
	})
}
