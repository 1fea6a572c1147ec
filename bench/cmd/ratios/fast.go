package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// fastSlack is how far above its row's fastest sample a sample may be and
// still count as taken in a fast phase of the machine (fastRounds).
const fastSlack = 1.25

// fastRounds is a/b over the rounds in which both samples ran fast: each
// within fastSlack of the fastest sample of its own row. A virtual
// machine's slow phases make every row 1.5–1.7× slower for minutes at a
// time, native included, and they hit the two rows of a round unevenly
// when they start or end between them; dropping the rounds either sample
// of which was slow leaves the pairs both taken at the machine's usual
// speed. It returns the median of their ratios and how many rounds were
// kept; n is 0 when the rows cannot be paired (different sample counts,
// fewer than two, or a zero sample).
func (r *results) fastRounds(group, op, a, b, unit string) (q float64, kept, n int) {
	as, bs := r.samples[group+"/"+op+"/"+a][unit], r.samples[group+"/"+op+"/"+b][unit]
	if len(as) != len(bs) || len(as) < 2 || slices.Contains(as, 0) || slices.Contains(bs, 0) {
		return 0, 0, 0
	}
	amin, bmin := slices.Min(as), slices.Min(bs)
	var qs []float64
	for i := range as {
		if as[i] <= fastSlack*amin && bs[i] <= fastSlack*bmin {
			qs = append(qs, as[i]/bs[i])
		}
	}
	return median(qs), len(qs), len(as)
}

// fastCell formats fastRounds: "2.41 (5 of 8)", or "–".
func fastCell(q float64, kept, n int) string {
	if n == 0 || kept == 0 {
		return "–"
	}
	return strconv.FormatFloat(q, 'f', 2, 64) + " (" + strconv.Itoa(kept) + " of " + strconv.Itoa(n) + ")"
}

// fastTable lists, per timed row of a group whose rounds pair, the
// ratios over its fast rounds (fastRounds) beside the main table's paired
// median: the figure a slow phase moves least. Memory rows are left out
// (their bytes do not depend on the machine's speed).
func fastTable(r *results, group string) string {
	var b strings.Builder
	for _, op := range r.ops[group] {
		unit, marker := r.compared(group, op)
		if unit == unitMemory {
			continue
		}
		zq, zk, zn := r.fastRounds(group, op, "zlua", "native", unit)
		gq, gk, gn := r.fastRounds(group, op, "gopherlua", "zlua", unit)
		if zn == 0 && gn == 0 {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "| operation | fast rounds: zlua/native (kept of all) | fast rounds: gopher-lua/zlua (kept of all) |\n|---|---:|---:|\n")
		}
		fmt.Fprintf(&b, "| %s%s | %s | %s |\n", op, marker, fastCell(zq, zk, zn), fastCell(gq, gk, gn))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
