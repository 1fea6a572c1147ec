package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is go test -bench output in the shapes the benchmarks print:
// timed rows with cpu-ns/op, a row without it, a memory row, fixed-count
// Frame rows and Scale rows with their own metrics.
const sample = `cpu: Test CPU
backend: Lua 5.4.4
BenchmarkCalls_LuaToGo/native-2   	100	  20.0 ns/op	  10.0 cpu-ns/op	  11.0 proc-cpu-ns/op	 0 B/op	 0 allocs/op
BenchmarkCalls_LuaToGo/native-2   	100	  30.0 ns/op	  12.0 cpu-ns/op	  13.0 proc-cpu-ns/op	 0 B/op	 0 allocs/op
BenchmarkCalls_LuaToGo/native-2   	100	  25.0 ns/op	  11.0 cpu-ns/op	  12.0 proc-cpu-ns/op	 0 B/op	 0 allocs/op
BenchmarkCalls_LuaToGo/zlua-2     	100	  50.0 ns/op	  44.0 cpu-ns/op	  48.0 proc-cpu-ns/op	 0 B/op	 0 allocs/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	 100.0 ns/op	  66.0 cpu-ns/op	  96.0 proc-cpu-ns/op	24 B/op	 1 allocs/op
BenchmarkPump_DrainRefs/zlua-2    	100	  10.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkObjects_BytesPerObject/native-2	1	 9000 ns/op	 80.00 B/object
BenchmarkObjects_BytesPerObject/zlua-2  	1	 5000 ns/op	 140.0 B/object
BenchmarkFrame_Entities1k/native-2 	200	 1000000 ns/op	  500000 cpu-ns/op	  510000 proc-cpu-ns/op	 0.1500 go-allocs/frame	 4 B/op	 0 allocs/op
BenchmarkFrame_Entities1k/zlua-2  	200	 2616334 ns/op	 94.39 cache-hit-%	 1000000 cpu-ns/op	 2567926 p50-ns/frame	 1100000 proc-cpu-ns/op	 157737 B/op	 70 allocs/op
BenchmarkFrame_Entities1k/gopherlua-2	200	 3000000 ns/op	 800000 cpu-ns/op	 1000000 proc-cpu-ns/op	 14000 B/op	 1500 allocs/op
BenchmarkScale_PumpDrain1e6/zlua-2	1	  53.9 ns/ref	  40.0 cpu-ns/ref	 579190 p50-ns/pump	 1014055 p99-ns/pump	 0 ns/op
BenchmarkScale_Parallel/native-2	1	 250000 N1-cpu-ns/frame	 1.010 N2-cpu-vs-N1	 1.950 N2-speedup	 0 ns/op
BenchmarkScale_Parallel/zlua-2  	1	 1000000 N1-cpu-ns/frame	 1.020 N2-cpu-vs-N1	 1.900 N2-speedup	 0 N2-vcsw/kframe	 0 ns/op
`

func parsed(t *testing.T, text string) *results {
	t.Helper()
	res, err := parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func contains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

func TestRatiosCompareThreadCPUTimeWithWallAndProcessBeside(t *testing.T) {
	res := parsed(t, sample)
	got := render(res, true, "###")
	contains(t, got,
		"### Calls",
		// cpu medians 11 / 44 / 66: ratios 4.00× and 1.50×; process CPU 96/48;
		// wall medians 25 / 50 / 100.
		"| LuaToGo | 11.0 | 44.0 | 66.0 | 4.00× | – | 1.50× | – | 2.00× | 2.00× | 2.00× | 0 |",
		"| Entities1k | 500000 | 1000000 | 800000 | 2.00× | – | 0.80× | – | 0.91× | 2.62× | 1.15× | 70 |",
	)
	if len(res.info) != 2 {
		t.Errorf("context lines = %v", res.info)
	}
}

func TestRowsWithoutCPUTimeAreComparedInWallTimeAndMarked(t *testing.T) {
	got := render(parsed(t, sample), true, "###")
	contains(t, got,
		"| DrainRefs * | – | 10.0 | – | – | – | – | – | – | – | – | 0 |",
		"\\* no `cpu-ns/op` reported: compared in wall time.",
	)
}

func TestWallTimeFootnoteOnlyWhenARowNeedsIt(t *testing.T) {
	var timed []string
	for _, line := range strings.Split(sample, "\n") {
		if !strings.Contains(line, "DrainRefs") {
			timed = append(timed, line)
		}
	}
	if got := render(parsed(t, strings.Join(timed, "\n")), true, "###"); strings.Contains(got, "compared in wall time") {
		t.Errorf("footnote for wall-only rows printed without such rows:\n%s", got)
	}
}

func TestMemoryRowsAreComparedInBytes(t *testing.T) {
	got := render(parsed(t, sample), true, "###")
	contains(t, got, "| BytesPerObject (B/object) | 80.0 | 140.0 | – | 1.75× | – | – | – | – | – |")
}

func TestDetailTablesListEveryOtherMetricPerImplementation(t *testing.T) {
	got := render(parsed(t, sample), true, "###")
	contains(t, got,
		"| operation | implementation | ns/op | proc-cpu-ns/op | B/op | allocs/op | cache-hit-% | go-allocs/frame | p50-ns/frame |",
		"| Entities1k | zlua | 2616334 | 1100000 | 157737 | 70 | 94.4 | – | 2567926 |",
		"| Entities1k | native | 1000000 | 510000 | 4 | 0 | – | 0.15 | – |",
	)
	brief := render(parsed(t, sample), false, "####")
	if strings.Contains(brief, "| implementation |") {
		t.Errorf("details without -md details:\n%s", brief)
	}
	contains(t, brief, "#### Frame", "| LuaToGo | 11.0 |")
}

func TestFrameRowsSayTheirFixedFrameCount(t *testing.T) {
	contains(t, render(parsed(t, sample), true, "###"), "Every Frame row ran 200 frames per run")
	uneven := strings.Replace(sample, "BenchmarkFrame_Entities1k/gopherlua-2\t200", "BenchmarkFrame_Entities1k/gopherlua-2\t1901", 1)
	got := render(parsed(t, uneven), true, "###")
	contains(t, got, "**Warning: the Frame rows ran different frame counts** (Entities1k)")
	if strings.Contains(got, "Every Frame row ran") {
		t.Errorf("fixed-count note despite uneven counts:\n%s", got)
	}
}

func TestScaleTableHasAColumnPerImplementation(t *testing.T) {
	got := render(parsed(t, sample), true, "###")
	contains(t, got,
		"| operation | metric | native C | zlua | gopher-lua |",
		"| PumpDrain1e6 | cpu-ns/ref | – | 40 | – |",
		"| PumpDrain1e6 | p99-ns/pump | – | 1014055 | – |",
		"| Parallel | N2-speedup | 1.95 | 1.90 | – |",
		"| Parallel | N2-cpu-vs-N1 | 1.01 | 1.02 | – |",
		"| Parallel | N2-vcsw/kframe | – | 0 | – |",
	)
	if strings.Contains(got, "| Parallel | ns/op") {
		t.Errorf("Scale placeholder ns/op listed:\n%s", got)
	}
}

func TestChartDrawsThreadCPURatios(t *testing.T) {
	svg := chart(parsed(t, sample))
	contains(t, svg, "Calls LuaToGo", "4.00×", "1.50×", "Pump DrainRefs *", "Objects BytesPerObject (B/object)")
	if strings.Contains(svg, "PumpDrain") || strings.Contains(svg, "Parallel") {
		t.Errorf("chart has Scale rows:\n%s", svg)
	}
}

func TestReplaceSectionKeepsMarkersAndTheRest(t *testing.T) {
	doc := "intro\n<!-- bench:lua54 -->\nold table\n<!-- /bench:lua54 -->\n<!-- bench:luajit -->\njit\n<!-- /bench:luajit -->\nend\n"
	got, err := replaceSection(doc, "lua54", "new table\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n<!-- bench:lua54 -->\nnew table\n<!-- /bench:lua54 -->\n<!-- bench:luajit -->\njit\n<!-- /bench:luajit -->\nend\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for name, bad := range map[string]string{
		"missing":    "intro\n",
		"twice":      doc + "<!-- bench:lua54 -->\n",
		"misordered": "<!-- /bench:lua54 -->\n<!-- bench:lua54 -->\n",
	} {
		if _, err := replaceSection(bad, "lua54", "x"); err == nil || !strings.Contains(err.Error(), `section "lua54"`) {
			t.Errorf("%s markers: err = %v", name, err)
		}
	}
}

func TestRunWritesMarkdownChartAndReadmeSection(t *testing.T) {
	dir := t.TempDir()
	md, svg, readme := filepath.Join(dir, "R.md"), filepath.Join(dir, "r.svg"), filepath.Join(dir, "README.md")
	if err := os.WriteFile(readme, []byte("# x\n<!-- bench:luajit -->\n<!-- /bench:luajit -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(strings.NewReader(sample), &out, md, svg, readme, "luajit"); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "### Calls", "Times are thread CPU time per operation")
	page, _ := os.ReadFile(md)
	contains(t, string(page), "# zlua benchmark results", "backend: Lua 5.4.4", "![ratios]("+svg+")", "| implementation |")
	chartFile, _ := os.ReadFile(svg)
	contains(t, string(chartFile), "<svg")
	rd, _ := os.ReadFile(readme)
	contains(t, string(rd), "_cpu: Test CPU; backend: Lua 5.4.4; date: ", "#### Calls", "<!-- /bench:luajit -->")
	if strings.Contains(string(rd), "| implementation |") || strings.Contains(string(rd), "Times are") {
		t.Errorf("README section has detail tables or the legend:\n%s", rd)
	}
}

func TestRunRejectsEmptyInputAndHalfReadmeFlags(t *testing.T) {
	var out bytes.Buffer
	if err := run(strings.NewReader("PASS\n"), &out, "", "", "", ""); err == nil || !strings.Contains(err.Error(), "no benchmark rows") {
		t.Errorf("empty input: err = %v", err)
	}
	if err := run(strings.NewReader(sample), &out, "", "", "README.md", ""); err == nil || !strings.Contains(err.Error(), "-section") {
		t.Errorf("-readme without -section: err = %v", err)
	}
	if err := run(strings.NewReader(sample), &out, "", "", filepath.Join(t.TempDir(), "none.md"), "lua54"); err == nil {
		t.Error("missing README: no error")
	}
}

func TestVariantRowsAreListedWithTheirOwnRatioAndNeverReplaceZlua(t *testing.T) {
	res := parsed(t, sample+`BenchmarkStructs_Opaque/native-2   	100	  30.0 ns/op	  20.0 cpu-ns/op	  21.0 proc-cpu-ns/op	 0 B/op	 0 allocs/op
BenchmarkStructs_Opaque/zlua-2     	100	  60.0 ns/op	  40.0 cpu-ns/op	  41.0 proc-cpu-ns/op	 0 B/op	 0 allocs/op
BenchmarkStructs_Opaque/zluaCopy-2 	100	 200.0 ns/op	 100.0 cpu-ns/op	 110.0 proc-cpu-ns/op	 48 B/op	 1 allocs/op
BenchmarkStructs_Opaque/gopherlua-2	100	 120.0 ns/op	  80.0 cpu-ns/op	  90.0 proc-cpu-ns/op	 32 B/op	 1 allocs/op
`)
	got := render(res, true, "###")
	contains(t, got,
		// the ratio row uses zlua (40), not the variant (100)
		"| Opaque | 20.0 | 40.0 | 80.0 | 2.00× | – | 2.00× |",
		"| operation | variant | time | variant/native | variant/zlua | allocs/op |",
		"| Opaque | zluaCopy | 100.0 | 5.00× | 2.50× | 1 |",
		"| Opaque | zluaCopy | 200 | 110 | 48 | 1 |",
	)
	if strings.Contains(render(parsed(t, sample), true, "###"), "| variant |") {
		t.Error("a report without variants has a variant table")
	}
}

func TestRoundColumnsPairTheSamplesOfEachRound(t *testing.T) {
	// Three rounds: round 1 native 10, zlua 30, gopher-lua 60; round 2 (a
	// machine twice as slow) 20, 40, 100; round 3 10, 25, 50. Per-round
	// zlua/native is 3.00, 2.00 and 2.50 (median 2.50), gopher-lua/zlua
	// 2.00, 2.50 and 2.00 (median 2.00); the medians' ratios are 30/10 =
	// 3.00 and 60/30 = 2.00: a slow round moves the medians' ratio, not
	// the paired median.
	const rounds = `BenchmarkCalls_LuaToGo/native-2	100	10.0 ns/op	10.0 cpu-ns/op
BenchmarkCalls_LuaToGo/zlua-2	100	30.0 ns/op	30.0 cpu-ns/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	60.0 ns/op	60.0 cpu-ns/op
BenchmarkCalls_LuaToGo/native-2	100	20.0 ns/op	20.0 cpu-ns/op
BenchmarkCalls_LuaToGo/zlua-2	100	40.0 ns/op	40.0 cpu-ns/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	100.0 ns/op	100.0 cpu-ns/op
BenchmarkCalls_LuaToGo/native-2	100	10.0 ns/op	10.0 cpu-ns/op
BenchmarkCalls_LuaToGo/zlua-2	100	25.0 ns/op	25.0 cpu-ns/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	50.0 ns/op	50.0 cpu-ns/op
`
	got := render(parsed(t, rounds), false, "###")
	contains(t, got, "| LuaToGo | 10.0 | 30.0 | 60.0 | 3.00× | 2.50 (2.00–3.00) | 2.00× | 2.00 (2.00–2.50) | – | 3.00× | 2.00× | – |")
}

func TestFastRoundsKeepOnlyRoundsWhereBothSamplesRanFast(t *testing.T) {
	// Four rounds of native / zlua: 10/25, 10/40 (zlua slow: 40 > 1.25×25),
	// 16/40 (both slow), 11/30. Kept: rounds 1 and 4, ratios 2.50 and
	// 2.73, median 2.61. Gopher-lua/zlua: 50/25, 60/40, 80/40, 55/30:
	// gopher-lua's fastest is 50, so 80 is slow; kept rounds 1 and 4
	// (round 2 has zlua slow): 2.00 and 1.83, median 1.92.
	const rounds = `BenchmarkCalls_LuaToGo/native-2	100	10.0 ns/op	10.0 cpu-ns/op
BenchmarkCalls_LuaToGo/zlua-2	100	25.0 ns/op	25.0 cpu-ns/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	50.0 ns/op	50.0 cpu-ns/op
BenchmarkCalls_LuaToGo/native-2	100	10.0 ns/op	10.0 cpu-ns/op
BenchmarkCalls_LuaToGo/zlua-2	100	40.0 ns/op	40.0 cpu-ns/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	60.0 ns/op	60.0 cpu-ns/op
BenchmarkCalls_LuaToGo/native-2	100	16.0 ns/op	16.0 cpu-ns/op
BenchmarkCalls_LuaToGo/zlua-2	100	40.0 ns/op	40.0 cpu-ns/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	80.0 ns/op	80.0 cpu-ns/op
BenchmarkCalls_LuaToGo/native-2	100	11.0 ns/op	11.0 cpu-ns/op
BenchmarkCalls_LuaToGo/zlua-2	100	30.0 ns/op	30.0 cpu-ns/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	55.0 ns/op	55.0 cpu-ns/op
BenchmarkObjects_BytesPerObject/native-2	1	 9000 ns/op	 80.00 B/object
BenchmarkObjects_BytesPerObject/zlua-2  	1	 5000 ns/op	 140.0 B/object
BenchmarkObjects_BytesPerObject/native-2	1	 9000 ns/op	 80.00 B/object
BenchmarkObjects_BytesPerObject/zlua-2  	1	 5000 ns/op	 140.0 B/object
`
	got := render(parsed(t, rounds), false, "###")
	contains(t, got, "| LuaToGo | 2.61 (2 of 4) | 1.92 (2 of 4) |", "fast rounds")
	if strings.Contains(got, "| BytesPerObject (B/object) | 2.") {
		t.Error("a memory row is in the fast-rounds table")
	}
	// One sample per row: nothing to pair, no table.
	if one := render(parsed(t, sample), false, "###"); strings.Contains(one, "| operation | fast rounds") {
		t.Errorf("a report without rounds has a fast-rounds table:\n%s", one)
	}
}
