// Command ratios reads `go test -bench` output and prints, per operation,
// the median ns/op of the native C, zlua and gopher-lua rows measured in
// that run, with the ratios between them. A benchmark named
// BenchmarkOp/native, BenchmarkOp/zlua, BenchmarkOp/gopherlua is one row.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var line = regexp.MustCompile(`^Benchmark([^/\s]+)/(\w+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:.*?\s([\d.]+) allocs/op)?`)

type samples struct{ ns, allocs []float64 }

func main() {
	table, order, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
	if len(order) == 0 {
		fmt.Fprintln(os.Stderr, "ratios: no benchmark rows found")
		os.Exit(1)
	}
	fmt.Print(render(table, order))
}

func parse(r io.Reader) (map[string]map[string]*samples, []string, error) {
	table := map[string]map[string]*samples{}
	var order []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		op, impl := m[1], m[2]
		if table[op] == nil {
			table[op] = map[string]*samples{}
			order = append(order, op)
		}
		s := table[op][impl]
		if s == nil {
			s = &samples{}
			table[op][impl] = s
		}
		ns, _ := strconv.ParseFloat(m[3], 64)
		s.ns = append(s.ns, ns)
		if m[4] != "" {
			a, _ := strconv.ParseFloat(m[4], 64)
			s.allocs = append(s.allocs, a)
		}
	}
	return table, order, sc.Err()
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

func cell(v float64) string {
	if v == 0 {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "×"
}

func render(table map[string]map[string]*samples, order []string) string {
	var b strings.Builder
	b.WriteString("| operation | native C | zlua | zlua/native | gopher-lua | gopher-lua/zlua | allocs/op |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, op := range order {
		row := table[op]
		get := func(impl string) (ns, allocs float64) {
			if s := row[impl]; s != nil {
				return median(s.ns), median(s.allocs)
			}
			return 0, 0
		}
		nat, _ := get("native")
		z, za := get("zlua")
		gl, _ := get("gopherlua")
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n",
			op, cell(nat), cell(z), ratio(z, nat), cell(gl), ratio(gl, z),
			strconv.FormatFloat(za, 'f', -1, 64))
	}
	b.WriteString("\nns/op, medians of the runs above; allocs/op is zlua's.\n")
	return b.String()
}
