package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// legend explains the ratio tables; it heads the printed report and
// RESULTS.md (the README explains them in its own words).
const legend = "Times are thread CPU time per operation (`cpu-ns/op`: CLOCK_THREAD_CPUTIME_ID with the " +
	"goroutine locked to its thread), medians of the runs; ratios compare medians of the same run. " +
	"`process CPU` is gopher-lua/zlua in process CPU time (`proc-cpu-ns/op`), which adds the Go " +
	"collector's background work on other threads (gopher-lua allocates per call; Lua's collector " +
	"runs inline and is in both figures). `wall` columns are the same ratios in wall time " +
	"(`ns/op`), which other load on the machine disturbs. `rounds` columns pair the two samples of each " +
	"round (bench/rounds.sh runs every row once per round, so they were taken seconds apart) and give the " +
	"median of those per-round ratios, which a slow phase hitting a few rounds moves less than the medians' " +
	"ratio, and in brackets the lowest and highest of them. allocs/op is zlua's. The `fast rounds` table " +
	"beside each group keeps only the rounds in which both samples were within 1.25× of their own row's " +
	"fastest sample (taken at the machine's usual speed, outside its slow phases) and gives the median of " +
	"their ratios and how many rounds that was.\n\n"

// render formats the report: per group a ratio table (a metric table for
// Scale) and, with details, a table of every other metric per
// implementation. Group headings start with heading ("###").
func render(r *results, details bool, heading string) string {
	var b strings.Builder
	wallOnly := false
	for _, group := range r.groups {
		fmt.Fprintf(&b, "%s %s\n\n", heading, group)
		if group == "Scale" {
			b.WriteString(scaleTable(r, group))
			continue
		}
		b.WriteString("| operation | native C | zlua | gopher-lua | zlua/native | rounds: zlua/native, median (min–max) | gopher-lua/zlua | rounds: gopher-lua/zlua, median (min–max) | process CPU: gopher-lua/zlua | wall: zlua/native | wall: gopher-lua/zlua | allocs/op |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, op := range r.ops[group] {
			unit, marker := r.compared(group, op)
			wallOnly = wallOnly || unit == unitWall
			nat, z, gl := r.get(group, op, "native", unit), r.get(group, op, "zlua", unit), r.get(group, op, "gopherlua", unit)
			procRatio, wallZN, wallGZ := "–", "–", "–"
			if unit != unitMemory {
				procRatio = ratio(r.get(group, op, "gopherlua", unitProc), r.get(group, op, "zlua", unitProc))
				wz := r.get(group, op, "zlua", unitWall)
				wallZN = ratio(wz, r.get(group, op, "native", unitWall))
				wallGZ = ratio(r.get(group, op, "gopherlua", unitWall), wz)
			}
			allocs := "–"
			if za := r.samples[group+"/"+op+"/zlua"]["allocs/op"]; len(za) > 0 {
				allocs = strconv.FormatFloat(median(za), 'f', -1, 64)
			}
			fmt.Fprintf(&b, "| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				op, marker, num(nat), num(z), num(gl), ratio(z, nat), r.roundRange(group, op, "zlua", "native", unit),
				ratio(gl, z), r.roundRange(group, op, "gopherlua", "zlua", unit), procRatio, wallZN, wallGZ, allocs)
		}
		b.WriteString("\n")
		b.WriteString(variantTable(r, group))
		b.WriteString(fastTable(r, group))
		b.WriteString(iterationNote(r, group))
		if details {
			b.WriteString(detailTable(r, group))
		}
	}
	if wallOnly {
		b.WriteString("\\* no `cpu-ns/op` reported: compared in wall time.\n")
	}
	return b.String()
}

func num(v float64) string {
	switch {
	case v == 0:
		return "–"
	case v >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// metricValue prints a reported metric, where 0 is a value (e.g. slots
// left), not a missing row; whole numbers print without decimals, small
// ones (ratios) with two.
func metricValue(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return num(v)
}

// roundRange is a/b over the rounds of the run: the i-th samples of two
// implementations of a row were taken in the same round, seconds apart
// (bench/rounds.sh), so their ratio is free of the drift between rounds.
// It reads "median (min–max)" of those per-round ratios: the median is
// the paired estimate, which a slow phase hitting a few rounds moves
// less than it moves the ratio of the two rows' medians beside it (each
// median may come from a different round); min–max shows how far one
// round strays. It is "–" when the two rows have different sample counts
// (no rounds to pair) or one.
func (r *results) roundRange(group, op, a, b, unit string) string {
	as, bs := r.samples[group+"/"+op+"/"+a][unit], r.samples[group+"/"+op+"/"+b][unit]
	if len(as) != len(bs) || len(as) < 2 {
		return "–"
	}
	qs := make([]float64, len(as))
	for i := range as {
		if as[i] == 0 || bs[i] == 0 {
			return "–"
		}
		qs[i] = as[i] / bs[i]
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	return f(median(qs)) + " (" + f(slices.Min(qs)) + "–" + f(slices.Max(qs)) + ")"
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "×"
}

// iterationNote says how many iterations the Frame rows ran: they must
// run a fixed number of frames, the same for every implementation
// (gopher-lua's frame cost grows with the frames run), so a report whose
// Frame rows ran different counts says so.
func iterationNote(r *results, group string) string {
	if group != "Frame" {
		return ""
	}
	counts := map[int]bool{}
	var uneven []string
	for _, op := range r.ops[group] {
		opCounts := map[int]bool{}
		for _, impl := range impls {
			for _, n := range r.iters[group+"/"+op+"/"+impl] {
				counts[n], opCounts[n] = true, true
			}
		}
		if len(opCounts) > 1 {
			uneven = append(uneven, op)
		}
	}
	if len(counts) == 1 {
		for n := range counts {
			return fmt.Sprintf("Every Frame row ran %d frames per run (a fixed count: `-benchtime %dx`).\n\n", n, n)
		}
	}
	return fmt.Sprintf("**Warning: the Frame rows ran different frame counts** (%s): gopher-lua's frame cost grows "+
		"with the frames run, so these ratios are not comparable; run them with a fixed count (`-benchtime 200x`).\n\n",
		strings.Join(uneven, ", "))
}

// variantTable lists the rows of a group whose implementation is none of
// impls (a second zlua form of the same operation, say): its compared time
// and its own ratio to the native row, so the variant is reported beside
// the zlua row and never replaces it.
func variantTable(r *results, group string) string {
	var b strings.Builder
	for _, op := range r.ops[group] {
		unit, marker := r.compared(group, op)
		for _, v := range r.variants[group+"/"+op] {
			if b.Len() == 0 {
				b.WriteString("| operation | variant | time | variant/native | variant/zlua | allocs/op |\n|---|---|---:|---:|---:|---:|\n")
			}
			t := r.get(group, op, v, unit)
			allocs := "–"
			if a := r.samples[group+"/"+op+"/"+v]["allocs/op"]; len(a) > 0 {
				allocs = strconv.FormatFloat(median(a), 'f', -1, 64)
			}
			fmt.Fprintf(&b, "| %s%s | %s | %s | %s | %s | %s |\n", op, marker, v, num(t),
				ratio(t, r.get(group, op, "native", unit)), ratio(t, r.get(group, op, "zlua", unit)), allocs)
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// detailUnits orders a detail table's columns: wall time, process CPU and
// allocations first, then the rows' own metrics by name.
func detailUnits(r *results, group string) []string {
	first := []string{unitWall, unitProc, "B/op", "allocs/op"}
	var others []string
	present := map[string]bool{}
	for _, op := range r.ops[group] {
		for _, impl := range impls {
			for u := range r.samples[group+"/"+op+"/"+impl] {
				present[u] = true
				if u != unitCPU && !slices.Contains(first, u) && !slices.Contains(others, u) {
					others = append(others, u)
				}
			}
		}
	}
	slices.Sort(others)
	var units []string
	for _, u := range first {
		if present[u] {
			units = append(units, u)
		}
	}
	return append(units, others...)
}

// detailTable lists, per operation and implementation, the medians of
// every metric but the compared CPU time.
func detailTable(r *results, group string) string {
	units := detailUnits(r, group)
	if len(units) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| operation | implementation | " + strings.Join(units, " | ") + " |\n|---|---|")
	b.WriteString(strings.Repeat("---:|", len(units)) + "\n")
	for _, op := range r.ops[group] {
		for _, impl := range append(slices.Clone(impls), r.variants[group+"/"+op]...) {
			s := r.samples[group+"/"+op+"/"+impl]
			if len(s) == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s |", op, impl)
			for _, u := range units {
				if len(s[u]) == 0 {
					b.WriteString(" – |")
				} else {
					b.WriteString(" " + metricValue(median(s[u])) + " |")
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// scaleUnit reports whether a Scale row's unit goes in its table: the
// rows report their own metrics and a placeholder ns/op.
func scaleUnit(u string) bool { return u != unitWall && u != "B/op" && u != "allocs/op" }

// scaleTable lists every metric of every Scale operation, one column per
// implementation.
func scaleTable(r *results, group string) string {
	var b strings.Builder
	b.WriteString("| operation | metric | native C | zlua | gopher-lua |\n|---|---|---:|---:|---:|\n")
	for _, op := range r.ops[group] {
		var units []string
		for _, impl := range impls {
			for u := range r.samples[group+"/"+op+"/"+impl] {
				if scaleUnit(u) && !slices.Contains(units, u) {
					units = append(units, u)
				}
			}
		}
		slices.Sort(units)
		for _, u := range units {
			fmt.Fprintf(&b, "| %s | %s |", op, u)
			for _, impl := range impls {
				if v := r.samples[group+"/"+op+"/"+impl][u]; len(v) > 0 {
					b.WriteString(" " + metricValue(median(v)) + " |")
				} else {
					b.WriteString(" – |")
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}
