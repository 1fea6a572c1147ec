// Command ratios reads `go test -bench` output and reports, per operation,
// the medians of the native C, zlua and gopher-lua rows measured in that
// run, with the ratios between them. Benchmarks are named
// Benchmark<Group>_<Operation>/<impl> with impl native, zlua or gopherlua;
// the Scale group reports its own metrics. Any other impl name is a
// variant of the operation (Structs_Opaque/zluaCopy, say): it gets its own
// table with its ratio to native and never stands in for the zlua row.
//
// The ratio tables compare thread CPU time per operation (the cpu-ns/op
// metric the benchmarks report), which a loaded machine disturbs far less
// than wall time; the wall-time ratios (ns/op) stand beside them. Rows
// without cpu-ns/op are compared in wall time and marked; rows reporting
// B/object (memory rows) are compared in bytes.
//
// Usage:
//
//	go test -bench . -count 6 ./... | ratios [-md RESULTS.md] [-svg ratios.svg] [-readme ../README.md -section lua54]
//
// The report always goes to standard output. -md writes it as a Markdown
// page with the run's context (machine, backend, date); -svg a bar chart of
// the ratios; -readme replaces the text between the lines
// `<!-- bench:SECTION -->` and `<!-- /bench:SECTION -->` of that file with
// the ratio tables (without the per-implementation details).
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
	benchLine = regexp.MustCompile(`^Benchmark(\w+?)(?:_(\w+))?/(\w+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)
	metric    = regexp.MustCompile(`([\d.]+) (\S+)`)
)

// impls are the implementations a row can have, in column order.
var impls = []string{"native", "zlua", "gopherlua"}

// results holds samples per group, operation, implementation and unit.
type results struct {
	groups   []string
	ops      map[string][]string
	samples  map[string]map[string][]float64 // "group/op/impl" → unit → values
	variants map[string][]string             // "group/op" → impls other than impls, in order seen
	iters    map[string][]int                // "group/op/impl" → iterations of each sample
	info     []string                        // context lines: cpu, backend, go, cores
}

func main() {
	md := flag.String("md", "", "also write the report as Markdown to this file")
	svg := flag.String("svg", "", "also write a bar chart of the ratios to this SVG file")
	readme := flag.String("readme", "", "replace the section marked <!-- bench:SECTION --> of this file with the ratio tables")
	section := flag.String("section", "", "the section name for -readme")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *md, *svg, *readme, *section); err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer, md, svg, readme, section string) error {
	if (readme == "") != (section == "") {
		return fmt.Errorf("-readme and -section go together")
	}
	res, err := parse(in)
	if err != nil {
		return err
	}
	if len(res.groups) == 0 {
		return fmt.Errorf("no benchmark rows found")
	}
	report := legend + render(res, true, "###")
	fmt.Fprint(out, report)
	if md != "" {
		doc := "# zlua benchmark results\n\n" + strings.Join(res.info, "  \n") +
			"  \ndate: " + time.Now().UTC().Format("2006-01-02") + "\n\n" + report
		if svg != "" {
			doc += "\n![ratios](" + svg + ")\n"
		}
		if err := os.WriteFile(md, []byte(doc), 0o644); err != nil {
			return err
		}
	}
	if svg != "" {
		if err := os.WriteFile(svg, []byte(chart(res)), 0o644); err != nil {
			return err
		}
	}
	if readme != "" {
		return updateReadme(readme, section, readmeBlock(res))
	}
	return nil
}

func parse(r io.Reader) (*results, error) {
	res := &results{ops: map[string][]string{}, samples: map[string]map[string][]float64{}, iters: map[string][]int{},
		variants: map[string][]string{}}
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
		if v := group + "/" + op; !slices.Contains(impls, impl) && !slices.Contains(res.variants[v], impl) {
			res.variants[v] = append(res.variants[v], impl)
		}
		key := group + "/" + op + "/" + impl
		if res.samples[key] == nil {
			res.samples[key] = map[string][]float64{}
		}
		n, err := strconv.Atoi(m[4])
		if err != nil {
			return nil, fmt.Errorf("%q: iterations: %w", text, err)
		}
		res.iters[key] = append(res.iters[key], n)
		for _, mm := range metric.FindAllStringSubmatch(m[5], -1) {
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

// get is the median of unit over the samples of one row, 0 if none.
func (r *results) get(group, op, impl, unit string) float64 {
	return median(r.samples[group+"/"+op+"/"+impl][unit])
}

// has reports whether any implementation of op reported unit.
func (r *results) has(group, op, unit string) bool {
	for _, impl := range impls {
		if len(r.samples[group+"/"+op+"/"+impl][unit]) > 0 {
			return true
		}
	}
	return false
}

// Units of the ratio tables.
const (
	unitCPU    = "cpu-ns/op"      // thread CPU time per op: the compared figure
	unitProc   = "proc-cpu-ns/op" // process CPU time: adds the Go GC's background work
	unitWall   = "ns/op"
	unitMemory = "B/object" // memory rows compare bytes
)

// compared returns the unit op's ratios compare and the marker its name
// gets in the tables: cpu-ns/op (no marker), B/object ("(B/object)") or,
// for rows without CPU time, wall ns/op ("*").
func (r *results) compared(group, op string) (unit, marker string) {
	switch {
	case r.has(group, op, unitMemory):
		return unitMemory, " (B/object)"
	case r.has(group, op, unitCPU):
		return unitCPU, ""
	}
	return unitWall, " *"
}
