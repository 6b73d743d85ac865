//go:build go1.24

package tabguard_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// chunkArm is one way of reading a PDF in BenchmarkPDFChunk, and what it
// measured.
type chunkArm struct {
	name  string
	take  func() time.Duration
	times benchutil.Samples
	bytes uint64
	peaks []float64 // MiB
}

// peak is the median of the arm's peaks, in MiB.
func (a *chunkArm) peak() float64 {
	p := slices.Clone(a.peaks)
	slices.Sort(p)
	return p[len(p)/2]
}

// BenchmarkPDFChunk reads one PDF of about 10 MB (100 printed pages, each
// with an image of noise that no compression shrinks: noisePages) in
// chunks of several sizes, to choose the default Options.PDFChunk. The
// reference is a program that already streams, with rod's proto calls
// alone: IO.read of 32 KiB, each chunk base64-decoded and written to
// io.Discard ("program-32KiB"); and the same program reading with no
// size, Chrome's own ("program-chrome", whose first read's bytes are
// reported). Against them, Watcher.PDFTo into io.Discard with a PDFChunk
// of 32 KiB, 64 KiB, 128 KiB, 256 KiB and 1 MiB, a watcher each on the
// same tab. Each iteration takes one PDF of each arm, in rotating order,
// and counts the bytes the process allocates meanwhile (read around the
// call, outside its time). Then the peak heap each reaches above a
// collected heap is sampled (peakHeap) in as many calls of each as there
// were iterations (-benchtime=9x for the figures in docs/captures.md): their
// median, and the largest. link=local drives the browser as every
// benchmark does; link=rtt20ms goes through a proxy that delays each
// direction by 10 ms (faultproxy), as to a browser in the same cloud
// region, where each read costs a round trip.
func BenchmarkPDFChunk(b *testing.B) {
	b.Run("link=local", func(b *testing.B) {
		benchPDFChunk(b, capturePage(b, noisePages(b).URL+"/?pages=100"))
	})
	b.Run("link=rtt20ms", func(b *testing.B) {
		br := benchBrowser(b)
		page := benchPage(b, br, noisePages(b).URL+"/?pages=100")
		host := strings.TrimPrefix(br.URL, "ws://")
		p := faultproxy.Start(b, host[:strings.IndexByte(host, '/')], func(p *faultproxy.Proxy) { p.Delay = 10 * time.Millisecond })
		far := rod.New().ControlURL(p.URL(br.URL)).Context(testbrowser.Context(b, 30*time.Minute))
		require.NoError(b, far.Connect())
		farPage, err := far.PageFromTarget(page.TargetID)
		require.NoError(b, err)
		benchPDFChunk(b, farPage)
	})
}

// benchPDFChunk is BenchmarkPDFChunk on page, reached through its own
// connection.
func benchPDFChunk(b *testing.B, page *rod.Page) {
	ctx := testbrowser.Context(b, 30*time.Minute)
	raw := page.Context(ctx)

	size, first, reads := 0, 0, 0
	arms := []*chunkArm{
		{name: "program-32KiB", take: func() time.Duration { d, _, _, _ := streamPDF(b, raw, 32<<10); return d }},
		{name: "program-chrome", take: func() time.Duration {
			d, n, f, r := streamPDF(b, raw, 0)
			size, first, reads = n, f, r
			return d
		}},
	}
	for _, chunk := range []int{32 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20} {
		w := watch(b, page, &tabguard.Options{PDFChunk: chunk, EvalTimeout: 5 * time.Minute})
		arms = append(arms, &chunkArm{name: fmt.Sprintf("tabguard-%dKiB", chunk>>10), take: func() time.Duration {
			return benchutil.Time(func() {
				n, err := w.PDFTo(ctx, io.Discard, nil)
				if err != nil || n == 0 {
					b.Fatalf("Watcher.PDFTo() = %d, %v; want a PDF", n, err)
				}
			})
		}})
	}
	for _, a := range arms { // warm every path
		a.take()
	}

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
	for range i {
		for _, a := range arms {
			a.peaks = append(a.peaks, float64(peakHeap(func() { a.take() }))/(1<<20))
		}
	}
	n := float64(len(arms[0].times))
	ref := arms[0]
	m := map[string]float64{
		"pdfs-each":             n,
		"pdf-MB":                float64(size) / (1 << 20),
		"chrome-reads":          float64(reads),
		"chrome-first-read-KiB": float64(first) / 1024,
	}
	for _, a := range arms {
		m[a.name+"-p50-ms"] = benchutil.Ms(a.times.Quantile(0.5))
		m[a.name+"-MB/op"] = float64(a.bytes) / n / (1 << 20)
		m[a.name+"-peak-MB"] = a.peak()
		m[a.name+"-peak-max-MB"] = slices.Max(a.peaks)
		if a != ref {
			m[a.name+"/program-p50"] = benchutil.Ratio(a.times.Quantile(0.5), ref.times.Quantile(0.5))
			m[a.name+"/program-peak"] = a.peak() / ref.peak()
		}
	}
	report(b, m)
}

// streamPDF is a program that streams a PDF with rod's proto calls alone:
// it prints page as a stream and reads it to its end, chunk bytes a read
// (zero asks for none, Chrome's own size), each chunk base64-decoded and
// written to io.Discard. It returns the time that took, the document's
// size, the bytes of the first read and the reads; the stream is closed
// after the timed part, as PDFTo closes it in the background.
func streamPDF(b *testing.B, page *rod.Page, chunk int) (d time.Duration, size, first, reads int) {
	var handle proto.IOStreamHandle
	d = benchutil.Time(func() {
		res, err := proto.PagePrintToPDF{TransferMode: proto.PagePrintToPDFTransferModeReturnAsStream}.Call(page)
		require.NoError(b, err, "PagePrintToPDF{ReturnAsStream}.Call()")
		handle = res.Stream
		read := proto.IORead{Handle: handle}
		if chunk > 0 {
			read.Size = &chunk
		}
		for {
			r, err := read.Call(page)
			require.NoError(b, err, "IORead{}.Call()")
			data := []byte(r.Data)
			if r.Base64Encoded {
				if data, err = base64.StdEncoding.DecodeString(r.Data); err != nil {
					b.Fatalf("IORead{}.Call(): %v", err)
				}
			}
			n, _ := io.Discard.Write(data)
			if reads == 0 {
				first = n
			}
			size, reads = size+n, reads+1
			if r.EOF {
				return
			}
		}
	})
	require.NoError(b, proto.IOClose{Handle: handle}.Call(page), "IOClose{}.Call()")
	return d, size, first, reads
}
