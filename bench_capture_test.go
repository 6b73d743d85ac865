//go:build go1.24

package tabguard_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// capturePage opens url in a tab of a browser of the benchmark's own,
// loaded and brought to front: a background tab's screenshot waits for
// Chrome to paint it (docs/captures.md).
func capturePage(b *testing.B, url string) *rod.Page {
	b.Helper()
	page := benchPage(b, benchBrowser(b), url)
	require.NoError(b, proto.PageBringToFront{}.Call(page.Context(testbrowser.Context(b, 10*time.Second))))
	return page
}

// BenchmarkScreenshot compares Watcher.Screenshot with rod's
// page.Screenshot, both of the viewport as PNG, on the same healthy tab in
// front. Each iteration takes one of each, in alternating order; the A/A
// figure splits rod's into odd and even blocks of aaBlock. Then the
// allocations of allocShots screenshots of each are counted.
func BenchmarkScreenshot(b *testing.B) {
	const (
		aaBlock    = 10
		allocShots = 20
	)
	page := capturePage(b, faultrows.CapturesServer(b).URL+"/doc?pages=3")
	w := watch(b, page, nil)
	ctx := testbrowser.Context(b, 10*time.Minute)
	raw := page.Context(ctx)

	size := 0
	shot := func(name string, take func() ([]byte, error)) time.Duration {
		return benchutil.Time(func() {
			png, err := take()
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
				b.Fatalf("%s() = %d bytes, %v; want a PNG", name, len(png), err)
			}
			size = len(png)
		})
	}
	rodShot := func() time.Duration {
		return shot("page.Screenshot", func() ([]byte, error) { return raw.Screenshot(false, nil) })
	}
	guardedShot := func() time.Duration {
		return shot("Watcher.Screenshot", func() ([]byte, error) { return w.Screenshot(ctx, false, nil) })
	}
	for range 10 { // warm both paths
		rodShot()
		guardedShot()
	}

	var rodS, guardS, oddS, evenS benchutil.Samples
	i := 0
	for b.Loop() {
		var r, g time.Duration
		if i%2 == 0 {
			r, g = rodShot(), guardedShot()
		} else {
			g, r = guardedShot(), rodShot()
		}
		rodS, guardS = append(rodS, r), append(guardS, g)
		if (i/aaBlock)%2 == 0 {
			evenS = append(evenS, r)
		} else {
			oddS = append(oddS, r)
		}
		i++
	}
	rodAllocs, rodBytes := allocated(allocShots, func() { rodShot() })
	guardAllocs, guardBytes := allocated(allocShots, func() { guardedShot() })
	report(b, map[string]float64{
		"shots-each":       float64(len(rodS)),
		"png-KB":           float64(size) / 1024,
		"rod-p50-ms":       benchutil.Ms(rodS.Quantile(0.5)),
		"rod-p95-ms":       benchutil.Ms(rodS.Quantile(0.95)),
		"tabguard-p50-ms":  benchutil.Ms(guardS.Quantile(0.5)),
		"tabguard-p95-ms":  benchutil.Ms(guardS.Quantile(0.95)),
		"p50-ratio":        benchutil.Ratio(guardS.Quantile(0.5), rodS.Quantile(0.5)),
		"p95-ratio":        benchutil.Ratio(guardS.Quantile(0.95), rodS.Quantile(0.95)),
		"aa-p50-ratio":     benchutil.Ratio(oddS.Quantile(0.5), evenS.Quantile(0.5)),
		"rod-allocs":       rodAllocs,
		"tabguard-allocs":  guardAllocs,
		"rod-B/op":         rodBytes,
		"tabguard-B/op":    guardBytes,
		"allocs-above-rod": guardAllocs - rodAllocs,
	})
}

// BenchmarkPDF compares a PDF taken in one CDP message (Page.printToPDF
// with its default transfer mode, the document base64 encoded in the
// reply, as rod's proto call gives it) with Watcher.PDFTo, which streams it
// a chunk a read (IO.read, Options.PDFChunk, 64 KiB by default) into io.Discard; and, to tell Chrome's
// share of the difference from the library's, with the same stream read by
// rod's proto calls alone (its IO.close after the timed part, as PDFTo
// closes in the background). Two pages of 50 printed pages: page=doc, the
// captures server's text and gradients, a small PDF that one read carries;
// page=images, each page with an image of noise that no compression
// shrinks, a PDF of several MiB. Each iteration takes one PDF of each
// kind, in rotating order, and counts the bytes each allocates (the
// process's, read around the call, outside its time). Then the peak heap
// each reaches above a collected heap is sampled over peakRuns calls of
// each.
func BenchmarkPDF(b *testing.B) {
	b.Run("page=doc", func(b *testing.B) {
		benchPDF(b, capturePage(b, faultrows.CapturesServer(b).URL+"/doc?pages=50"))
	})
	b.Run("page=images", func(b *testing.B) {
		benchPDF(b, capturePage(b, noisePages(b).URL+"/?pages=50"))
	})
}

// pdfArm is one way of taking a PDF in BenchmarkPDF, and what it measured.
type pdfArm struct {
	name  string
	take  func() time.Duration
	times benchutil.Samples
	bytes uint64
	peak  uint64
}

func benchPDF(b *testing.B, page *rod.Page) {
	const peakRuns = 3
	w := watch(b, page, nil)
	ctx := testbrowser.Context(b, 10*time.Minute)
	raw := page.Context(ctx)

	size := 0
	oneMessage := &pdfArm{name: "one-message", take: func() time.Duration {
		return benchutil.Time(func() {
			res, err := proto.PagePrintToPDF{}.Call(raw)
			if err != nil || !bytes.HasPrefix(res.Data, []byte("%PDF-")) {
				b.Fatalf("PagePrintToPDF{}.Call() = %v; want a PDF", err)
			}
			size = len(res.Data)
		})
	}}
	rodStream := &pdfArm{name: "rod-stream", take: func() time.Duration {
		var handle proto.IOStreamHandle
		d := benchutil.Time(func() { handle = readPDFStream(b, raw) })
		if err := (proto.IOClose{Handle: handle}).Call(raw); err != nil {
			b.Fatalf("IOClose{}.Call() = %v", err)
		}
		return d
	}}
	streamed := &pdfArm{name: "streamed", take: func() time.Duration {
		return benchutil.Time(func() {
			n, err := w.PDFTo(ctx, io.Discard, nil)
			if err != nil || n == 0 {
				b.Fatalf("Watcher.PDFTo() = %d, %v; want a PDF", n, err)
			}
		})
	}}
	arms := []*pdfArm{oneMessage, rodStream, streamed}
	for range 2 { // warm every path
		for _, a := range arms {
			a.take()
		}
	}

	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for k := range arms {
			a := arms[(i+k)%len(arms)]
			var d time.Duration
			a.bytes += allocatedBy(func() { d = a.take() })
			a.times = append(a.times, d)
		}
		i++
	}
	for range peakRuns {
		for _, a := range arms {
			a.peak = max(a.peak, peakHeap(func() { a.take() }))
		}
	}
	n := float64(len(streamed.times))
	m := map[string]float64{
		"pdfs-each":             n,
		"pdf-MB":                float64(size) / (1 << 20),
		"p50-ratio":             benchutil.Ratio(streamed.times.Quantile(0.5), oneMessage.times.Quantile(0.5)),
		"rod-stream-p50-ratio":  benchutil.Ratio(rodStream.times.Quantile(0.5), oneMessage.times.Quantile(0.5)),
		"streamed/rod-stream":   benchutil.Ratio(streamed.times.Quantile(0.5), rodStream.times.Quantile(0.5)),
		"peak-ratio":            float64(streamed.peak) / float64(max(oneMessage.peak, 1)),
		"B-ratio":               float64(streamed.bytes) / float64(max(oneMessage.bytes, 1)),
		"streamed/rod-stream-B": float64(streamed.bytes) / float64(max(rodStream.bytes, 1)),
	}
	for _, a := range arms {
		m[a.name+"-p50-ms"] = benchutil.Ms(a.times.Quantile(0.5))
		m[a.name+"-B/op"] = float64(a.bytes) / n
		m[a.name+"-peak-MB"] = float64(a.peak) / (1 << 20)
	}
	report(b, m)
}

// readPDFStream prints page to PDF as a stream and reads it to its end,
// DefaultPDFChunk a read, with rod's proto calls alone; it returns the stream's
// handle, still open.
func readPDFStream(b *testing.B, page *rod.Page) proto.IOStreamHandle {
	res, err := proto.PagePrintToPDF{TransferMode: proto.PagePrintToPDFTransferModeReturnAsStream}.Call(page)
	if err != nil {
		b.Fatalf("PagePrintToPDF{ReturnAsStream}.Call() = %v", err)
	}
	chunk := tabguard.DefaultPDFChunk
	for {
		r, err := proto.IORead{Handle: res.Stream, Size: &chunk}.Call(page)
		if err != nil {
			b.Fatalf("IORead{}.Call() = %v", err)
		}
		if r.EOF {
			return res.Stream
		}
	}
}

// noisePages serves "/?pages=N": N printed pages, each with the one
// 160×160 image of noise, at "/noise.png".
func noisePages(b *testing.B) *httptest.Server {
	img := image.NewNRGBA(image.Rect(0, 0, 160, 160))
	rng := rand.New(rand.NewPCG(1, 2)) // the same image every run
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	var noise bytes.Buffer
	require.NoError(b, png.Encode(&noise, img))
	mux := http.NewServeMux()
	mux.HandleFunc("/noise.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(noise.Bytes())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("pages"))
		fmt.Fprint(w, `<!doctype html><title>images</title><style>section{break-after:page}</style>`)
		for i := range max(n, 1) {
			fmt.Fprintf(w, `<section><h1>page %d</h1><img src="/noise.png?%d" width="160" height="160"></section>`, i+1, i)
		}
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	return srv
}

// allocated runs f n times and returns the heap allocations and bytes a
// run made, as the whole process counts them.
func allocated(n int, f func()) (allocs, bytes float64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(n), float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// allocatedBy runs f and returns the bytes the process allocated meanwhile.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// peakHeap runs f and returns the most the heap's objects, live or not yet
// swept, grew above a collected heap meanwhile, sampled every 200 µs.
func peakHeap(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base := read()
	peak := base
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return max(peak, read()) - base
}
