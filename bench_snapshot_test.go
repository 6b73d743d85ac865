//go:build go1.24

package tabguard_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/wsmeter"
)

// snapshotLinks is how many links BenchmarkSnapshot's page holds.
const snapshotLinks = 50_000

// BenchmarkSnapshot times Watcher.Snapshot with its defaults (capped at
// DefaultSnapshotElements elements and DefaultSnapshotBytes) on a page of
// 50,000 links, over a connection that counts the bytes it reads, beside
// Playwright's page.ariaSnapshot() of the same page in another tab of the
// same browser, in its default mode and in its "ai" mode (with refs, as
// an agent reads it). The Playwright side runs only when
// TABGUARD_PLAYWRIGHT names the directory where playwright-core is
// installed (scripts/bench installs it from scripts/bench.d); NODE names
// node (default "node"). Each iteration takes one snapshot of each, in
// rotating order; Playwright's are timed in its own process.
func BenchmarkSnapshot(b *testing.B) {
	br := benchBrowser(b)
	url := serveSnap(b).URL + "/links?n=50000"
	page, meter := meteredPage(b, br)
	benchLoad(b, page, url)
	w := watch(b, page, nil)
	ctx := testbrowser.Context(b, 20*time.Minute)

	var text, wire int64
	var shown, total int
	arms := []*snapArm{{name: "tabguard", take: func() (time.Duration, int64) {
		before := meter.BytesRead()
		var s tabguard.Snapshot
		d := benchutil.Time(func() {
			var err error
			if s, err = w.Snapshot(ctx, tabguard.SnapshotOptions{}); err != nil || s.Total != snapshotLinks {
				b.Fatalf("Watcher.Snapshot() = %d of %d elements, %v; want %d in all", s.Shown, s.Total, err, snapshotLinks)
			}
		})
		text, wire, shown, total = int64(len(s.String())), meter.BytesRead()-before, s.Shown, s.Total
		return d, text
	}}}
	if deps := os.Getenv("TABGUARD_PLAYWRIGHT"); deps != "" {
		pw := startAriaSnapshot(b, ctx, br, deps, url)
		arms = append(arms,
			&snapArm{name: "playwright", take: func() (time.Duration, int64) { return pw.take(b, "default") }},
			&snapArm{name: "playwright-ai", take: func() (time.Duration, int64) { return pw.take(b, "ai") }})
	} else {
		b.Log("the Playwright side is off: set TABGUARD_PLAYWRIGHT to where playwright-core is installed (scripts/bench does)")
	}
	for _, a := range arms { // warm every path
		a.take()
	}

	i := 0
	for b.Loop() {
		for k := range arms {
			a := arms[(i+k)%len(arms)]
			d, n := a.take()
			a.times, a.bytes = append(a.times, d), n
		}
		i++
	}
	m := map[string]float64{
		"links":          snapshotLinks,
		"snapshots-each": float64(len(arms[0].times)),
		"elements-shown": float64(shown),
		"elements-total": float64(total),
		"wire-KiB":       float64(wire) / 1024,
	}
	for _, a := range arms {
		m[a.name+"-p50-ms"] = benchutil.Ms(a.times.Quantile(0.5))
		m[a.name+"-max-ms"] = benchutil.Ms(a.times.Quantile(1))
		m[a.name+"-KiB"] = float64(a.bytes) / 1024
	}
	for _, a := range arms[1:] {
		m[a.name+"-time-ratio"] = benchutil.Ratio(arms[0].times.Quantile(0.5), a.times.Quantile(0.5))
		m[a.name+"-bytes-ratio"] = float64(arms[0].bytes) / float64(a.bytes)
	}
	report(b, m)
}

// snapArm is one way of taking a snapshot in BenchmarkSnapshot: it
// answers the time a snapshot took and the bytes of its text.
type snapArm struct {
	name  string
	take  func() (time.Duration, int64)
	times benchutil.Samples
	bytes int64
}

// ariaSnapshot is a node process running scripts/bench.d/ariasnapshot.mjs
// on a page of its own in the benchmark's browser.
type ariaSnapshot struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

// startAriaSnapshot starts ariasnapshot.mjs with playwright-core from
// deps, connected to br, on url, and waits until its page has loaded. It
// ends the process when b ends; ctx bounds it.
func startAriaSnapshot(b *testing.B, ctx context.Context, br *testbrowser.Browser, deps, url string) *ariaSnapshot {
	b.Helper()
	ws, err := wsmeter.ActivePortURL(br.Launcher.Get(flags.UserDataDir))
	require.NoError(b, err)
	node := os.Getenv("NODE")
	if node == "" {
		node = "node"
	}
	script, err := filepath.Abs(filepath.Join("scripts", "bench.d", "ariasnapshot.mjs"))
	require.NoError(b, err)
	cmd := exec.CommandContext(ctx, node, script, "--deps", deps, "--ws", ws, "--url", url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	require.NoError(b, err)
	out, err := cmd.StdoutPipe()
	require.NoError(b, err)
	require.NoError(b, cmd.Start())
	b.Cleanup(func() {
		_ = in.Close() // the script closes its page and exits
		if err := cmd.Wait(); err != nil {
			b.Errorf("%s: %v\n%s", script, err, stderr.String())
		}
	})
	pw := &ariaSnapshot{in: in, out: bufio.NewScanner(out)}
	pw.out.Buffer(make([]byte, 64<<10), 1<<20)
	if !pw.out.Scan() || pw.out.Text() != "ready" {
		b.Fatalf("%s did not start: %q, %v\n%s", script, pw.out.Text(), pw.out.Err(), stderr.String())
	}
	return pw
}

// take asks for one page.ariaSnapshot in mode and answers the time it
// took in Playwright's process and its bytes.
func (pw *ariaSnapshot) take(b *testing.B, mode string) (time.Duration, int64) {
	if _, err := io.WriteString(pw.in, mode+"\n"); err != nil {
		b.Fatalf("ask for an ariaSnapshot: %v", err)
	}
	if !pw.out.Scan() {
		b.Fatalf("ariaSnapshot(%s): no answer: %v", mode, pw.out.Err())
	}
	var r struct {
		MS    float64 `json:"ms"`
		Bytes int64   `json:"bytes"`
		Lines int     `json:"lines"`
	}
	if err := json.Unmarshal(pw.out.Bytes(), &r); err != nil || r.Lines < snapshotLinks {
		b.Fatalf("ariaSnapshot(%s) = %s, %v; want a line for each of %d links", mode, strings.TrimSpace(pw.out.Text()), err, snapshotLinks)
	}
	return time.Duration(r.MS * float64(time.Millisecond)), r.Bytes
}
