package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/tabguard/tabguard
cpu: Some CPU @ 2.0GHz
BenchmarkHealthyEval-2   	    2000	   1521683 ns/op	         1.010 aa-p50-ratio	         0.9965 p50-ratio	         1.000 tabguard-requests
BenchmarkRefusal/tab=crashed-2         	    2000	     11780 ns/op	       181.7 p99-us	         1.029 p50/roundtrip
--- FAIL: BenchmarkDOM5MB
PASS
pkg: github.com/tabguard/tabguard/chromedpguard
BenchmarkChromedpEval-2   	    5000	   1251200 ns/op	         1.062 p50-ratio	         0.4572 plain-p50-ms	      5000 calls-each
BenchmarkChromedpBinarySize 1 11653329 plain-bytes 11999586 guarded-bytes 346257 growth-bytes
pkg: github.com/tabguard/tabguard
BenchmarkFrameEval/frame=in-process-2         	    2000	   1839574 ns/op	         1.021 p50-ratio	         1.000 tabguard-requests
BenchmarkFrameEval/frame=out-of-process-2     	    2000	   1847832 ns/op	         1.062 p50-ratio	         2.000 tabguard-requests
BenchmarkFrameCrash-2                         	      20	 241421155 ns/op	         0.1438 last-p95-ms	         1.000 main-errors
BenchmarkStartLatency-2   	       1	32599602517 ns/op	         0 failed-starts-500ms	         2.039 watchbrowser-max-rtt	         1.039 watch-max-rtt	         1.250 firsteval-max-rtt	         2.004 watchbrowser-500ms-rtt	         0.9990 watchbrowser/rodconnect-500ms
`

func TestParse(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.header["cpu"]; got != "Some CPU @ 2.0GHz" {
		t.Errorf("cpu = %q; want %q", got, "Some CPU @ 2.0GHz")
	}
	tests := []struct {
		bench, unit string
		want        float64
	}{
		{healthy, "p50-ratio", 0.9965},
		{healthy, "ns/op", 1521683},
		{refused, "p99-us", 181.7},
		{chromedpEval, "plain-p50-ms", 0.4572},
		{chromedpSize, "guarded-bytes", 11999586},
		{chromedpSize, "growth-bytes", 346257},
	}
	for _, tt := range tests {
		if got, ok := res.get(tt.bench, tt.unit); !ok || got != tt.want {
			t.Errorf("get(%q, %q) = %v, %v; want %v, true", tt.bench, tt.unit, got, ok, tt.want)
		}
	}
	if _, ok := res.get(dom, "full/tabguard"); ok {
		t.Errorf("get(%q) found a result for a failed benchmark", dom)
	}
}

func TestCheck(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]verdict{}
	for _, v := range check(res) {
		got[v.goal.bench+" "+v.goal.unit] = v
	}
	tests := []struct {
		key      string
		met      bool
		measured string
	}{
		{healthy + " p50-ratio", true, "0.997"},
		{healthy + " tabguard-requests", true, "1.000"},
		{refused + " p50/roundtrip", true, "1.029"},
		{dom + " full/tabguard", false, "no result"},
		{chromedpEval + " p50-ratio", false, "1.062"},
		{chromedpSize + " growth-bytes", true, "346257 bytes"},
		{frameIn + " p50-ratio", true, "1.021"},
		{frameOut + " p50-ratio", false, "1.062"},
		{frameIn + " tabguard-requests", true, "1.000"},
		{frameOut + " tabguard-requests", false, "2.000"},
		{frameCrash + " last-p95-ms", true, "0.14 ms"},
		{frameCrash + " main-errors", false, "1"},
		{startLatency + " watchbrowser-max-rtt", true, "2.039 RTT"},
		{startLatency + " watch-max-rtt", true, "1.039 RTT"},
		{startLatency + " firsteval-max-rtt", false, "1.250 RTT"},
		{startLatency + " failed-starts-500ms", true, "0"},
	}
	for _, tt := range tests {
		v, ok := got[tt.key]
		if !ok {
			t.Errorf("no goal for %s", tt.key)
			continue
		}
		if v.met != tt.met || v.measured != tt.measured {
			t.Errorf("goal %s = met %v, measured %q; want %v, %q", tt.key, v.met, v.measured, tt.met, tt.measured)
		}
	}
}

func TestCheckBinaryGrowth(t *testing.T) {
	tests := []struct {
		growth string
		met    bool
	}{
		{"1048576", true}, // 1 MB exactly
		{"1048577", false},
	}
	for _, tt := range tests {
		res, err := parse(strings.NewReader("BenchmarkChromedpBinarySize 1 " + tt.growth + " growth-bytes\n"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, v := range check(res) {
			if v.goal.bench != chromedpSize || v.goal.unit != "growth-bytes" {
				continue
			}
			found = true
			if v.met != tt.met {
				t.Errorf("growth %s bytes: met = %v; want %v", tt.growth, v.met, tt.met)
			}
		}
		if !found {
			t.Fatal("no goal for the binary growth")
		}
	}
}

// The start's grid has a row per delay, each figure in its column, and
// "no result" where the run reported none.
func TestRenderGrid(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	out := render(nil, res, check(res), sample)
	for _, want := range []string{
		"| one-way delay | WatchBrowser | bw.Watch |",
		"| 500 ms | 2.004 RTT | no result |",
		"| 0.999 | 0 |\n",
		"| 50 ms | no result |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render() has no %q", want)
		}
	}
}
