package main

import (
	"fmt"
	"strings"
)

// chart draws zlua/native and gopher-lua/zlua per operation (in the
// compared unit: thread CPU time for timed rows) as horizontal bars on a
// common scale, with a line at 1×.
func chart(r *results) string {
	type bar struct {
		label      string
		zn, gz     float64
		hasN, hasG bool
	}
	var bars []bar
	maxv := 1.0
	for _, group := range r.groups {
		if group == "Scale" {
			continue
		}
		for _, op := range r.ops[group] {
			unit, marker := r.compared(group, op)
			nat := r.get(group, op, "native", unit)
			z := r.get(group, op, "zlua", unit)
			gl := r.get(group, op, "gopherlua", unit)
			br := bar{label: group + " " + op + marker}
			if nat > 0 && z > 0 {
				br.zn, br.hasN = z/nat, true
				maxv = max(maxv, br.zn)
			}
			if gl > 0 && z > 0 {
				br.gz, br.hasG = gl/z, true
				maxv = max(maxv, br.gz)
			}
			bars = append(bars, br)
		}
	}
	const left, width, rowH = 230, 420, 34
	h := 76 + rowH*len(bars)
	scale := float64(width) / maxv
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", left+width+80, h)
	fmt.Fprintf(&b, `<rect x="%d" y="8" width="12" height="10" fill="#d9534f"/><text x="%d" y="17">zlua / native C (lower is better)</text>`+"\n", left, left+16)
	fmt.Fprintf(&b, `<rect x="%d" y="24" width="12" height="10" fill="#5b8def"/><text x="%d" y="33">gopher-lua / zlua (higher: zlua faster)</text>`+"\n", left, left+16)
	fmt.Fprintf(&b, `<text x="%d" y="49" fill="#555">thread CPU time per operation, medians of one run</text>`+"\n", left)
	for i, br := range bars {
		y := 64 + i*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+18, br.label)
		if br.hasN {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="12" fill="#d9534f"/><text x="%.1f" y="%d">%.2f×</text>`+"\n",
				left, y+2, br.zn*scale, float64(left)+br.zn*scale+4, y+12, br.zn)
		}
		if br.hasG {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="12" fill="#5b8def"/><text x="%.1f" y="%d">%.2f×</text>`+"\n",
				left, y+16, br.gz*scale, float64(left)+br.gz*scale+4, y+26, br.gz)
		}
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="60" x2="%.1f" y2="%d" stroke="#333" stroke-dasharray="3,3"/>`+"\n", left+scale, left+scale, h-4)
	b.WriteString("</svg>\n")
	return b.String()
}
