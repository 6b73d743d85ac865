package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A golden file opens with comment lines (#) naming the package; every
// other non-blank line is a line of the listing.
func writeGolden(file, path string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Exported API of %s, one line per name.\n", path)
	b.WriteString("# make lint fails when a line here is missing or changed; make api rewrites this file.\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

func readGolden(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

// compare reports each golden line that is missing from got, or that got
// holds in another form, and notes the lines that only got has. It returns
// false if a golden line is missing or changed.
func compare(w io.Writer, golden string, want, got []string) bool {
	have := map[string]bool{}
	byKey := map[string][]string{}
	for _, l := range got {
		have[l] = true
		byKey[key(l)] = append(byKey[key(l)], l)
	}
	wanted := map[string]bool{}
	wantedKey := map[string]bool{}
	ok := true
	for _, l := range want {
		wanted[l] = true
		wantedKey[key(l)] = true
		if have[l] {
			continue
		}
		ok = false
		if now := byKey[key(l)]; len(now) > 0 {
			fmt.Fprintf(w, "%s: changed: %s\n\tnow: %s\n", golden, l, strings.Join(now, "\n\tnow: "))
		} else {
			fmt.Fprintf(w, "%s: missing: %s\n", golden, l)
		}
	}
	var added int
	for _, l := range got {
		if wanted[l] || wantedKey[key(l)] {
			continue // recorded, or already reported as the changed form of a golden line
		}
		fmt.Fprintf(w, "%s: new: %s\n", golden, l)
		added++
	}
	if added > 0 {
		fmt.Fprintf(w, "%s: %d new line(s): run make api to record them\n", golden, added)
	}
	return ok
}

// key is what a line names, without its type: "func Watch",
// "method Watcher.Close", "field Options.EvalTimeout", "type Options".
func key(line string) string {
	kind, rest, _ := strings.Cut(line, " ")
	switch kind {
	case "method":
		recv, rest, _ := strings.Cut(strings.TrimPrefix(rest, "("), ") ")
		recv = strings.TrimPrefix(recv, "*")
		if i := strings.IndexByte(recv, '['); i >= 0 {
			recv = recv[:i]
		}
		return kind + " " + recv + "." + ident(rest)
	case "field":
		name, _, _ := strings.Cut(rest, " ")
		return kind + " " + name
	default:
		return kind + " " + ident(rest)
	}
}

// ident returns the identifier that s starts with.
func ident(s string) string {
	for i, r := range s {
		if r != '_' && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r > 127) {
			return s[:i]
		}
	}
	return s
}
