package bench

import (
	"fmt"
	"testing"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/cgo"
)

// patternScripts are the Strings rows: common uses of the pattern
// functions, one iteration per loop turn. The functions are fetched into
// locals once, as hot code does.
var patternScripts = map[string]string{
	// find without special characters: the plain search (the start
	// varies, so LuaJIT cannot hoist the whole search out of the loop)
	"Find": `local s = "the quick brown fox jumps over the lazy dog"
		local n = 0
		for i = 1, %d do local a, b = find(s, "lazy", i %% 8 + 1) n = n + b end`,
	// captures, classes, lazy and greedy repetitions, anchors
	"Match": `local s = "  player_name = Ada Lovelace  "
		for i = 1, %d do local k, v = match(s, "^%%s*([%%w_]+)%%s*=%%s*(.-)%%s*$") end`,
	"Gsub": `local s = "a  few   words\tand\n spaces "
		for i = 1, %d do local r, n = gsub(s, "%%s+", " ") end`,
	"Gmatch": `local s = "one two three four five six"
		for i = 1, %d do for w in gmatch(s, "%%a+") do end end`,
	// the four together, the row the issue asks for
	"Patterns": `local s = "key_42 = value with spaces"
		for i = 1, %d do
			local a = find(s, "value", 1, true)
			local k, v = match(s, "^(%%w+)%%s*=%%s*(.-)%%s*$")
			local r = gsub(s, "%%s+", " ")
			for w in gmatch(s, "%%a+") do end
		end`,
}

// benchPatterns runs the named script with the backend's own pattern
// functions (native: the stock C functions, put back in the string table
// of the same kind of Env) and with zlua's, in CPU time (cpu-ns/op, see
// cputime_test.go) as the other rows.
func benchPatterns(b *testing.B, name string) {
	for _, impl := range []string{"native", "zlua"} {
		b.Run(impl, func(b *testing.B) {
			e, err := zlua.New(zlua.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			if impl == "native" {
				must(b, e.DoString(`for k, f in pairs(debug.getregistry()["`+cgo.StockPatternsKey+`"]) do string[k] = f end`))
			}
			must(b, e.DoString(`find, match, gsub, gmatch = string.find, string.match, string.gsub, string.gmatch`))
			chunk := fmt.Sprintf(patternScripts[name], b.N)
			b.ReportAllocs()
			b.ResetTimer()
			defer startCPU(b).report()
			must(b, e.DoString(chunk))
		})
	}
}

// BenchmarkStrings_Patterns runs find (plain), match (captures), gsub and
// gmatch in one loop turn.
func BenchmarkStrings_Patterns(b *testing.B) { benchPatterns(b, "Patterns") }

// BenchmarkStrings_Find is string.find of a pattern without special
// characters (a plain search). LuaJIT compiles the stock call into its
// trace; zlua's is a C function call from the trace (trace stitching).
func BenchmarkStrings_Find(b *testing.B) { benchPatterns(b, "Find") }

// BenchmarkStrings_Match is string.match with two captures.
func BenchmarkStrings_Match(b *testing.B) { benchPatterns(b, "Match") }

// BenchmarkStrings_Gsub collapses runs of spaces.
func BenchmarkStrings_Gsub(b *testing.B) { benchPatterns(b, "Gsub") }

// BenchmarkStrings_Gmatch iterates over the words of a sentence.
func BenchmarkStrings_Gmatch(b *testing.B) { benchPatterns(b, "Gmatch") }
