// Command apicheck keeps the exported API of the project's packages from
// shrinking or changing by accident. For each package directory it lists
// every exported name, one line each (see listing.go), and compares the
// listing with the golden file api/<package name>.txt: a golden line that
// is missing or reads differently fails the check, a new line is only
// noted. With -w it writes the golden files instead.
//
//	go run ./internal/cmd/apicheck [-w] [-api api] DIR...
//
// Each DIR is built with `go list -export` inside it, so a nested module
// (chromedpguard) resolves its own dependencies, and the types are read
// from the compiler's export data: nothing is type-checked from source.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	write := flag.Bool("w", false, "write the golden files instead of checking them")
	apiDir := flag.String("api", "api", "directory of the golden files")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: apicheck [-w] [-api dir] DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	failed := false
	for _, dir := range flag.Args() {
		pkg, err := load(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "apicheck: %s: %v\n", dir, err)
			os.Exit(1)
		}
		golden := filepath.Join(*apiDir, pkg.Name()+".txt")
		lines := listing(pkg)
		if *write {
			if err := writeGolden(golden, pkg.Path(), lines); err != nil {
				fmt.Fprintf(os.Stderr, "apicheck: %v\n", err)
				os.Exit(1)
			}
			fmt.Printf("%s: %d lines\n", golden, len(lines))
			continue
		}
		want, err := readGolden(golden)
		if err != nil {
			fmt.Fprintf(os.Stderr, "apicheck: %v (run make api to record it)\n", err)
			os.Exit(1)
		}
		if !compare(os.Stdout, golden, want, lines) {
			failed = true
		}
	}
	if failed {
		fmt.Println("apicheck: the exported API lost or changed the names above; restore them," +
			" or, for a deliberate break, run make api and commit the golden files")
		os.Exit(1)
	}
}
