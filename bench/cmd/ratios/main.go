// Command ratios reads `go test -bench` output and reports, per operation,
// the median ns/op of the native C, zlua and gopher-lua rows measured in
// that run, with the ratios between them. Benchmarks are named
// Benchmark<Group>_<Operation>/<impl> with impl native, zlua or gopherlua;
// the Scale group reports its own metrics.
//
// Usage:
//
//	go test -bench . -count 6 ./... | ratios [-md RESULTS.md] [-svg ratios.svg]
//
// The table always goes to standard output.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

var (
	benchLine = regexp.MustCompile(`^Benchmark(\w+?)(?:_(\w+))?/(\w+?)(?:-\d+)?\s+\d+\s+(.*)$`)
	metric    = regexp.MustCompile(`([\d.]+) (\S+)`)
)

// results holds samples per group, operation, implementation and unit.
type results struct {
	groups  []string
	ops     map[string][]string
	samples map[string]map[string][]float64 // "group/op/impl" → unit → values
	info    []string                        // context lines: cpu, backend, go, cores
}

func main() {
	md := flag.String("md", "", "also write the report as Markdown to this file")
	svg := flag.String("svg", "", "also write a bar chart of the ratios to this SVG file")
	flag.Parse()
	res, err := parse(os.Stdin)
	if err == nil && len(res.groups) == 0 {
		err = fmt.Errorf("no benchmark rows found")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
	report := render(res)
	fmt.Print(report)
	if *md != "" {
		doc := "# zlua benchmark results\n\n" + strings.Join(res.info, "  \n") +
			"  \ndate: " + time.Now().UTC().Format("2006-01-02") + "\n\n" + report
		if *svg != "" {
			doc += "\n![ratios](" + *svg + ")\n"
		}
		if err := os.WriteFile(*md, []byte(doc), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			os.Exit(1)
		}
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, []byte(chart(res)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			os.Exit(1)
		}
	}
}

func parse(r io.Reader) (*results, error) {
	res := &results{ops: map[string][]string{}, samples: map[string]map[string][]float64{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		text := sc.Text()
		for _, p := range []string{"cpu:", "backend:", "go:", "cores:"} {
			if strings.HasPrefix(text, p) && !slices.Contains(res.info, text) {
				res.info = append(res.info, text)
			}
		}
		m := benchLine.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		group, op, impl := m[1], m[2], m[3]
		if op == "" {
			group, op = "Other", m[1]
		}
		if !slices.Contains(res.groups, group) {
			res.groups = append(res.groups, group)
		}
		if !slices.Contains(res.ops[group], op) {
			res.ops[group] = append(res.ops[group], op)
		}
		key := group + "/" + op + "/" + impl
		if res.samples[key] == nil {
			res.samples[key] = map[string][]float64{}
		}
		for _, mm := range metric.FindAllStringSubmatch(m[4], -1) {
			v, err := strconv.ParseFloat(mm[1], 64)
			if err == nil {
				res.samples[key][mm[2]] = append(res.samples[key][mm[2]], v)
			}
		}
	}
	return res, sc.Err()
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (r *results) get(group, op, impl, unit string) float64 {
	return median(r.samples[group+"/"+op+"/"+impl][unit])
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
// left), not a missing row.
func metricValue(v float64) string {
	if v == 0 {
		return "0"
	}
	return num(v)
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "×"
}

// standard units are the ones the main table shows.
func standard(u string) bool { return u == "ns/op" || u == "B/op" || u == "allocs/op" }

// extraMetrics lists the other metrics a group's rows reported (frame
// percentiles, allocations per frame, ...), per implementation.
func extraMetrics(r *results, group string) string {
	var b strings.Builder
	for _, op := range r.ops[group] {
		for _, impl := range []string{"native", "zlua", "gopherlua"} {
			s := r.samples[group+"/"+op+"/"+impl]
			var units []string
			for u := range s {
				if !standard(u) {
					units = append(units, u)
				}
			}
			slices.Sort(units)
			for _, u := range units {
				if b.Len() == 0 {
					b.WriteString("| operation | implementation | metric | value |\n|---|---|---|---:|\n")
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", op, impl, u, metricValue(median(s[u])))
			}
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func render(r *results) string {
	var b strings.Builder
	for _, group := range r.groups {
		fmt.Fprintf(&b, "### %s\n\n", group)
		if group == "Scale" {
			b.WriteString("| operation | metric | value |\n|---|---|---:|\n")
			for _, op := range r.ops[group] {
				s := r.samples[group+"/"+op+"/zlua"]
				units := make([]string, 0, len(s))
				for u := range s {
					if !standard(u) {
						units = append(units, u)
					}
				}
				slices.Sort(units)
				for _, u := range units {
					fmt.Fprintf(&b, "| %s | %s | %s |\n", op, u, metricValue(median(s[u])))
				}
			}
			b.WriteString("\n")
			continue
		}
		b.WriteString("| operation | native C | zlua | zlua/native | gopher-lua | gopher-lua/zlua | allocs/op |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
		for _, op := range r.ops[group] {
			nat := r.get(group, op, "native", "ns/op")
			z := r.get(group, op, "zlua", "ns/op")
			gl := r.get(group, op, "gopherlua", "ns/op")
			za := r.get(group, op, "zlua", "allocs/op")
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n",
				op, num(nat), num(z), ratio(z, nat), num(gl), ratio(gl, z),
				strconv.FormatFloat(za, 'f', -1, 64))
		}
		b.WriteString("\n")
		b.WriteString(extraMetrics(r, group))
	}
	b.WriteString("ns/op: medians of the runs; allocs/op is zlua's. Ratios compare rows of the same run.\n")
	return b.String()
}

// chart draws zlua/native and gopher-lua/zlua per operation as horizontal
// bars on a common scale, with a line at 1×.
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
			nat := r.get(group, op, "native", "ns/op")
			z := r.get(group, op, "zlua", "ns/op")
			gl := r.get(group, op, "gopherlua", "ns/op")
			br := bar{label: group + " " + op}
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
	h := 60 + rowH*len(bars)
	scale := float64(width) / maxv
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", left+width+80, h)
	fmt.Fprintf(&b, `<rect x="%d" y="8" width="12" height="10" fill="#d9534f"/><text x="%d" y="17">zlua / native C (lower is better)</text>`+"\n", left, left+16)
	fmt.Fprintf(&b, `<rect x="%d" y="24" width="12" height="10" fill="#5b8def"/><text x="%d" y="33">gopher-lua / zlua (higher: zlua faster)</text>`+"\n", left, left+16)
	for i, br := range bars {
		y := 48 + i*rowH
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
	fmt.Fprintf(&b, `<line x1="%.1f" y1="44" x2="%.1f" y2="%d" stroke="#333" stroke-dasharray="3,3"/>`+"\n", left+scale, left+scale, h-4)
	b.WriteString("</svg>\n")
	return b.String()
}
