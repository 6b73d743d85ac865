package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// rowBound bounds each row, the start of its pool included.
const rowBound = 90 * time.Second

// measure runs the rows in only (all when empty) in the table's order,
// starting each pool as a row first needs it, and stops every pool before
// it returns.
func measure(ctx context.Context, env poolEnv, only rowSet) (*report, error) {
	rep := &report{date: time.Now(), load: loadAverage(), cores: runtime.NumCPU()}
	var err error
	if rep.browserless, err = installedVersion(env.app); err != nil {
		return nil, err
	}
	if rep.node, err = nodeVersion(ctx, env.node); err != nil {
		return nil, err
	}
	if rep.chromiumBin, err = browserBin(env.browsers); err != nil {
		return nil, err
	}
	pages := servePages()
	defer pages.Close()
	pageURL := pages.URL + "/"

	pools := &pools{env: env}
	defer pools.stop()
	// One pool with a long TIMEOUT for the healthy path and the tab's own
	// faults, one with a short TIMEOUT (long enough for a session to start
	// on a busy machine), one with a single slot, and one to kill.
	var (
		long   = poolConfig{timeout: 2 * time.Minute, concurrent: 2, queued: 2}
		short  = poolConfig{timeout: 10 * time.Second, concurrent: 2, queued: 2}
		single = poolConfig{timeout: time.Minute, concurrent: 1, queued: 1}
		doomed = poolConfig{timeout: time.Minute, concurrent: 2, queued: 2, name: "to kill"}
	)
	cases := []struct {
		pool poolConfig
		run  func(context.Context, *pool) row
	}{
		{long, func(ctx context.Context, p *pool) row { return healthyRow(ctx, p, pageURL, rep) }},
		{short, func(ctx context.Context, p *pool) row { return busyTimeoutRow(ctx, p, pageURL) }},
		{short, func(ctx context.Context, p *pool) row { return idleTimeoutRow(ctx, p, pageURL) }},
		{single, func(ctx context.Context, p *pool) row { return queueRow(ctx, p, pageURL) }},
		{doomed, func(ctx context.Context, p *pool) row { return killedRow(ctx, p, pageURL) }},
		{long, func(ctx context.Context, p *pool) row { return crashRow(ctx, p, pageURL) }},
		{long, func(ctx context.Context, p *pool) row { return dialogRow(ctx, p, pageURL) }},
		{long, func(ctx context.Context, p *pool) row { return runawayRow(ctx, p, pageURL) }},
		{short, func(ctx context.Context, p *pool) row { return rodRow(ctx, p) }},
		{long, func(ctx context.Context, p *pool) row { return resumedRow(ctx, p, pageURL) }},
		{long, func(ctx context.Context, p *pool) row { return notResumedRow(ctx, p, pageURL) }},
	}
	for i, c := range cases {
		if !only.has(i + 1) {
			continue
		}
		began := time.Now()
		p, err := pools.get(ctx, c.pool)
		if err != nil {
			return nil, err
		}
		r := runRow(ctx, func(ctx context.Context) row { return c.run(ctx, p) })
		status := "ok"
		if r.err != nil {
			status = "MISSED: " + r.err.Error()
		}
		fmt.Fprintf(os.Stderr, "poolcheck: row %d (%s): %s | %s | %s | %s\n", i+1, dur(time.Since(began)), r.name, r.returned, r.took, status)
		rep.rows = append(rep.rows, r)
	}
	return rep, nil
}

// runRow runs one case under rowBound.
func runRow(ctx context.Context, c func(context.Context) row) row {
	ctx, cancel := context.WithTimeout(ctx, rowBound)
	defer cancel()
	return c(ctx)
}

// installedVersion reads the version of the browserless package that app
// holds.
func installedVersion(app string) (string, error) {
	b, err := os.ReadFile(filepath.Join(app, "node_modules/@browserless.io/browserless/package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("browserless's package.json: %w", err)
	}
	return pkg.Version, nil
}

func nodeVersion(ctx context.Context, node string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", node, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// browserBin returns the binary that playwright-core's Chromium path under
// browsers, a symlink, leads to.
func browserBin(browsers string) (string, error) {
	links, err := filepath.Glob(filepath.Join(browsers, "chromium-*", "chrome-linux64", "chrome"))
	if err != nil || len(links) != 1 {
		return "", fmt.Errorf("-browsers: want one chromium-*/chrome-linux64/chrome in %s, found %d", browsers, len(links))
	}
	return os.Readlink(links[0])
}

// loadAverage reads the 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], ", ")
	}
	return "unknown"
}
