package faultrows

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// CapturesServer starts a 127.0.0.1 server for t, for the capture and
// recovery rows of every backend: "/doc?pages=N" prints as N pages (one
// section each, with a line of text and a 160×160 block), "/tall?px=N" is
// one N px tall block, "/p1" sets a session cookie c=1 and a persistent
// cookie p=1, "/p2" is a plain page. Every page is small on screen.
func CapturesServer(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/doc", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("pages"))
		var b strings.Builder
		b.WriteString(`<!doctype html><title>doc</title><style>section{break-after:page}` +
			`i{display:block;width:160px;height:160px;background:linear-gradient(45deg,teal,gold)}</style>`)
		for i := range max(n, 1) {
			fmt.Fprintf(&b, "<section><h1>page %d</h1><p>héllo wörld</p><i></i></section>", i+1)
		}
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/tall", func(w http.ResponseWriter, r *http.Request) {
		px, _ := strconv.Atoi(r.URL.Query().Get("px"))
		fmt.Fprintf(w, `<!doctype html><title>tall</title><style>body{margin:0}</style><div style="height:%dpx;background:teal"></div>`, px)
	})
	mux.HandleFunc("/p1", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "c", Value: "1", Path: "/"})
		http.SetCookie(w, &http.Cookie{Name: "p", Value: "1", Path: "/", MaxAge: 3600})
		fmt.Fprint(w, `<!doctype html><title>p1</title><p>one</p>`)
	})
	mux.HandleFunc("/p2", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>p2</title><p>two</p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// AllAtOnce runs each call at the same time and returns its error by name,
// once every one has returned. The captures of a stuck tab each wait out
// the eval timeout: side by side, a row waits for it once, not once per
// capture, and its stuck renderer spins that much less.
func AllAtOnce(calls map[string]func() error) map[string]error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs = make(map[string]error, len(calls))
	)
	for name, call := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := call()
			mu.Lock()
			errs[name] = err
			mu.Unlock()
		}()
	}
	wg.Wait()
	return errs
}

// CrashingWriter keeps what it is handed, and calls Crash, which crashes
// the tab's renderer and waits until its watcher knows, as it takes the
// first chunk: a PDF read through it is read on after the crash.
type CrashingWriter struct {
	bytes.Buffer
	// Writes counts the chunks written.
	Writes int
	Crash  func()
}

// Write calls Crash on the first chunk, then keeps p.
func (w *CrashingWriter) Write(p []byte) (int, error) {
	if w.Writes++; w.Writes == 1 {
		w.Crash()
	}
	return w.Buffer.Write(p)
}

// CheckWholePDF holds got, a PDF read in n bytes, to want, the same page's
// PDF printed whole: as long, a PDF, ending in %%EOF.
func CheckWholePDF(t testing.TB, want, got []byte, n int64) {
	t.Helper()
	if n != int64(len(got)) {
		t.Errorf("bytes written = %d; want the %d the writer took", n, len(got))
	}
	if len(got) != len(want) {
		t.Errorf("PDF of %d bytes; want %d, as long as the same page's PDF printed whole", len(got), len(want))
	}
	if !bytes.HasPrefix(got, []byte("%PDF-")) {
		t.Errorf("PDF starts %q; want %%PDF-", got[:min(len(got), 8)])
	}
	if !bytes.Contains(bytes.TrimSpace(got[max(len(got)-32, 0):]), []byte("%%EOF")) {
		t.Errorf("PDF does not end in %q: not whole", "%%EOF")
	}
}
