package main

import (
	"fmt"
	"regexp"
	"strings"
)

// link is a plot's image line for a section of the report.
type link struct {
	section, alt, path string // path is relative to the report
}

func (l link) line() string { return fmt.Sprintf("![%s](%s)", l.alt, l.path) }

// sectionHeading matches a numbered section's heading as benchreport
// writes it: "## 17. Start over a slow link".
var sectionHeading = regexp.MustCompile(`^## \d+\. (.*)$`)

// linkPlots returns the report with one image line at the end of each
// link's section, after removing every image line that shows an SVG of
// dir (a path relative to the report). It is idempotent: a report that
// has the links already comes back unchanged.
func linkPlots(report, dir string, links []link) (string, error) {
	lines := strings.Split(report, "\n")
	lines = unlink(lines, dir)
	for _, l := range links {
		start := -1
		for i, line := range lines {
			if m := sectionHeading.FindStringSubmatch(line); m != nil && m[1] == l.section {
				start = i
				break
			}
		}
		if start < 0 {
			return "", fmt.Errorf("no section %q for %s: was it renamed in internal/cmd/benchreport?", l.section, l.path)
		}
		end := start + 1 // the section's last line that is not blank, plus one
		for i := start + 1; i < len(lines) && !strings.HasPrefix(lines[i], "## "); i++ {
			if strings.TrimSpace(lines[i]) != "" {
				end = i + 1
			}
		}
		lines = append(lines[:end], append([]string{"", l.line()}, lines[end:]...)...)
	}
	return strings.Join(lines, "\n"), nil
}

// unlink removes the image lines of SVGs in dir, each with the blank line
// before it.
func unlink(lines []string, dir string) []string {
	img := regexp.MustCompile(`^!\[[^\]]*\]\(` + regexp.QuoteMeta(dir) + `/[^/)]+\.svg\)$`)
	out := lines[:0:0]
	for _, line := range lines {
		if img.MatchString(line) {
			if n := len(out); n > 0 && strings.TrimSpace(out[n-1]) == "" {
				out = out[:n-1]
			}
			continue
		}
		out = append(out, line)
	}
	return out
}
