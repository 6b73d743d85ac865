// Package docs_test holds the documentation's relative links to the files
// and headings they name: README.md and every page of docs/ link to one
// another by heading, and a renamed heading must not leave a link behind.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	link       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
	scheme     = regexp.MustCompile(`^[a-z]+:`)
)

// TestRelativeLinks fails for a relative link whose file does not exist,
// or whose #fragment names no heading of that file.
func TestRelativeLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md")
	checked := 0
	for _, page := range pages {
		for i, line := range prose(t, page) {
			for _, m := range link.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if scheme.MatchString(target) {
					continue
				}
				checked++
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link %s: no file %s", page, i+1, target, path)
					continue
				}
				if frag != "" && !anchors(t, path)[frag] {
					t.Errorf("%s:%d: link %s: %s has no heading for #%s", page, i+1, target, path, frag)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link found: the pages moved?")
	}
}

// prose returns the lines of a markdown file with fenced code blanked out,
// so that a line's index is still its line number.
func prose(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// anchors returns the fragments GitHub gives the headings of a markdown
// file: lower case, punctuation dropped, spaces as hyphens, and -1, -2, ...
// after a repeated one.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	if !strings.HasSuffix(path, ".md") {
		return nil
	}
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range prose(t, path) {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, strings.TrimSpace(m[1]))
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}
