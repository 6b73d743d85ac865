package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/tabguard/tabguard/internal/testbrowser"
)

// machineInfo describes where the run happened.
type machineInfo [][2]string

func machine(res *results, load, elapsed string) machineInfo {
	m := machineInfo{
		{"date (UTC)", time.Now().UTC().Format("2006-01-02 15:04")},
		{"CPU", orUnknown(res.header["cpu"])},
		{"cores", fmt.Sprint(runtime.NumCPU())},
		{"OS", fmt.Sprintf("%s/%s, kernel %s", orUnknown(res.header["goos"]), orUnknown(res.header["goarch"]), kernel())},
		{"Go", runtime.Version()},
		{"Chromium", chromium()},
		{"rod", rodVersion()},
	}
	if load != "" {
		m = append(m, [2]string{"load average at start (1, 5, 15 min)", load})
	}
	if elapsed != "" {
		m = append(m, [2]string{"run time", elapsed})
	}
	return m
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// chromium asks the browser the benchmarks launch for its version.
func chromium() string {
	bin, err := testbrowser.Bin()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if err != nil && line == "" {
		return "unknown (" + bin + " --version: " + err.Error() + ")"
	}
	return line + " (" + bin + ")"
}

func rodVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/go-rod/rod" {
				return d.Version
			}
		}
	}
	return "unknown"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// render writes the report: machine, goals, each section's figures, and
// the raw benchmark output they came from.
func render(m machineInfo, res *results, vs []verdict, raw string) string {
	var b strings.Builder
	met := 0
	for _, v := range vs {
		if v.met {
			met++
		}
	}
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Written by `scripts/bench` from a fresh run; nothing here is typed by hand. Rerun the script to update it.\n")
	b.WriteString("Each figure is measured against its baseline in the same process, on the same browser, interleaved.\n")
	b.WriteString("Absolute times depend on the machine; the ratios are what the goals are about.\n\n")
	b.WriteString("## Machine\n\n| | |\n|---|---|\n")
	for _, kv := range m {
		fmt.Fprintf(&b, "| %s | %s |\n", kv[0], kv[1])
	}
	fmt.Fprintf(&b, "\n## Goals: %d of %d met\n\n| goal | measured | result |\n|---|---|---|\n", met, len(vs))
	for _, v := range vs {
		result := "met"
		if !v.met {
			result = "**missed**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", v.goal.text, v.measured, result)
	}
	for i, s := range sections {
		fmt.Fprintf(&b, "\n## %d. %s\n\n%s\n\n| figure | value |\n|---|---|\n", i+1, s.title, s.how)
		for _, r := range s.rows {
			fmt.Fprintf(&b, "| %s | %s |\n", r.label, value(res, r.bench, r.unit, r.format))
		}
		if s.grid != nil {
			renderGrid(&b, res, s.grid)
		}
		if s.note != nil {
			if n := s.note(res); n != "" {
				b.WriteString("\n" + n + "\n")
			}
		}
	}
	b.WriteString("\n## Raw output\n\n```\n" + strings.TrimRight(raw, "\n") + "\n```\n")
	return b.String()
}

// renderGrid writes g as a table of its own, a row per setting.
func renderGrid(b *strings.Builder, res *results, g *grid) {
	fmt.Fprintf(b, "\n| %s |", g.corner)
	for _, c := range g.cols {
		fmt.Fprintf(b, " %s |", c.label)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(g.cols)) + "\n")
	for _, k := range g.keys {
		fmt.Fprintf(b, "| %s |", k[1])
		for _, c := range g.cols {
			fmt.Fprintf(b, " %s |", value(res, c.bench, fmt.Sprintf(c.unit, k[0]), c.format))
		}
		b.WriteString("\n")
	}
}

// value is a figure as format writes it, or "no result".
func value(res *results, bench, unit, format string) string {
	if v, ok := res.get(bench, unit); ok {
		return fmt.Sprintf(format, v)
	}
	return "no result"
}
