// Command poolcheck measures tabguard against a real browser pool:
// browserless, started here on 127.0.0.1 in front of the system Chromium,
// reached with [tabguard.Connect]. It runs one case a row (healthy evals,
// a session timeout while busy and while idle, a full queue, the pool
// killed, a renderer crash, a dialog, a runaway script, rod's own
// transport at a session timeout), prints the table of what tabguard
// returned and how long it took, and writes it into docs/remote.md between
// the pool-table markers when every row met its expectation. It exits with
// status 1 when a row did not, and 2 when it could not run at all.
//
// scripts/test-pool installs browserless and runs it:
//
//	poolcheck -app DIR -browsers DIR -routes DIR -tmp DIR [-readme docs/remote.md] [-rows 1,4]
//
// Every browserless it starts, and every Chromium those start, is ended
// before it returns: the Chromium processes are found by their
// user-data-dir, which lies under -tmp.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// runBound bounds the whole run; scripts/test-pool allows a little more.
const runBound = 8 * time.Minute

func main() {
	var env poolEnv
	flag.StringVar(&env.app, "app", "", "folder to run browserless from: its node_modules holds @browserless.io/browserless")
	flag.StringVar(&env.browsers, "browsers", "", "PLAYWRIGHT_BROWSERS_PATH, where playwright-core's chromium path leads to the system Chromium")
	flag.StringVar(&env.routes, "routes", "", "ROUTES: a folder holding only browserless's chromium and management routes")
	flag.StringVar(&env.tmp, "tmp", "", "private folder for the pools' data dirs and logs")
	flag.StringVar(&env.node, "node", "node", "the Node.js binary")
	readme := flag.String("readme", "", "page to write the table into, between the pool-table markers (docs/remote.md)")
	rows := flag.String("rows", "", "run only these rows, e.g. 1,4 (the page is then left alone)")
	child := flag.String("rod-child", "", "internal: connect rod's own transport to this URL and evaluate until the process dies")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *child != "" {
		os.Exit(rodChild(ctx, *child))
	}
	ctx, cancel := context.WithTimeout(ctx, runBound)
	defer cancel()
	code := run(ctx, env, *readme, *rows)
	stop()
	cancel()
	os.Exit(code)
}

// run measures every row and reports them; it returns the exit status.
func run(ctx context.Context, env poolEnv, readme, rows string) int {
	only, err := parseRows(rows)
	if err == nil {
		err = env.check()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "poolcheck:", err)
		return 2
	}
	r, err := measure(ctx, env, only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "poolcheck:", err)
		return 2
	}
	table := r.markdown()
	fmt.Println(table)
	if failed := r.failed(); len(failed) > 0 {
		for _, row := range failed {
			fmt.Fprintf(os.Stderr, "poolcheck: %s: %v\n", row.name, row.err)
		}
		fmt.Fprintln(os.Stderr, "poolcheck: the page is left as it was")
		return 1
	}
	if readme != "" && len(only) > 0 {
		fmt.Fprintln(os.Stderr, "poolcheck: only some rows ran: the page is left as it was")
	} else if readme != "" {
		if err := writeTable(readme, table); err != nil {
			fmt.Fprintln(os.Stderr, "poolcheck:", err)
			return 2
		}
		fmt.Fprintln(os.Stderr, "poolcheck: wrote the table into", readme)
	}
	return 0
}
