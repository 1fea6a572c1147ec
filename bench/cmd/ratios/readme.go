package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// readmeBlock is what -readme puts in its section: the run's context on one
// line and the ratio tables, headings one level below the README's
// per-backend heading.
func readmeBlock(r *results) string {
	ctx := append(append([]string(nil), r.info...), "date: "+time.Now().UTC().Format("2006-01-02"))
	for i, c := range ctx {
		ctx[i] = strings.TrimSpace(c)
	}
	return "_" + strings.Join(ctx, "; ") + "_\n\n" + render(r, false, "####")
}

// updateReadme replaces the lines between `<!-- bench:SECTION -->` and
// `<!-- /bench:SECTION -->` in the file at path with block; the markers
// stay. Both markers must be there, once each, in that order.
func updateReadme(path, section, block string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := replaceSection(string(data), section, block)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

func replaceSection(doc, section, block string) (string, error) {
	begin, end := "<!-- bench:"+section+" -->\n", "<!-- /bench:"+section+" -->"
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < 0 {
		return "", fmt.Errorf("section %q: markers %q and %q not found", section, strings.TrimSpace(begin), end)
	}
	if strings.Count(doc, begin) > 1 || strings.Count(doc, end) > 1 {
		return "", fmt.Errorf("section %q: markers appear more than once", section)
	}
	if j < i {
		return "", fmt.Errorf("section %q: end marker before begin marker", section)
	}
	return doc[:i+len(begin)] + strings.TrimRight(block, "\n") + "\n" + doc[j:], nil
}
