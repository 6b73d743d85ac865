package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

func TestNewClientTimeouts(t *testing.T) {
	c := NewClient("http://127.0.0.1:8090")
	assert.Equal(t, 60*time.Second, c.HTTP.Timeout)
	assert.Equal(t, 300*time.Second, c.Long.Timeout)
}

// silentServer accepts connections and never answers, until t ends.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // the listener is closed
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

func TestClientSilentServerTimesOut(t *testing.T) {
	c := NewClient(silentServer(t))
	c.HTTP.Timeout, c.Long.Timeout = 300*time.Millisecond, 300*time.Millisecond
	ctx := testbrowser.Context(t, 30*time.Second) // far longer: the backstop must fire first

	calls := map[string]func() error{
		"Open":       func() error { _, err := c.Open(ctx, "http://127.0.0.1:1/"); return err },
		"DOM":        func() error { _, err := c.DOM(ctx, "tab", 0); return err },
		"Clickables": func() error { _, err := c.Clickables(ctx, "tab"); return err },
		"Scroll":     func() error { _, err := c.Scroll(ctx, "tab", 0, 1); return err },
		"Cursor":     func() error { _, err := c.Cursor(ctx, "tab", 1, 1); return err },
		"Tabs":       func() error { _, err := c.Tabs(ctx); return err },
		"Navigate":   func() error { _, err := c.Navigate(ctx, "tab", "http://127.0.0.1:1/"); return err },
		"Reload":     func() error { _, err := c.Reload(ctx, "tab"); return err },
		"CloseTab":   func() error { return c.CloseTab(ctx, "tab") },
		"Dialog":     func() error { _, err := c.Dialog(ctx, "tab", true, ""); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- call() }()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.Contains(t, err.Error(), "Client.Timeout exceeded")
			case <-time.After(10 * time.Second):
				t.Fatal("the client still waits on a server that never answers")
			}
		})
	}
}

// roundTripFunc answers a request in the test.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The calls that wait for a page to load go through Long, the others
// through HTTP, and every one carries the token.
func TestClientRoutesLongCalls(t *testing.T) {
	var got []string
	client := func(name string) *http.Client {
		return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			assert.Equal(t, "Bearer s3cret", r.Header.Get("Authorization"))
			got = append(got, name+" "+r.Method+" "+r.URL.Path)
			return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
		})}
	}
	c := &Client{BaseURL: "http://127.0.0.1:8090", HTTP: client("HTTP"), Long: client("Long"), Token: "s3cret"}
	ctx := testbrowser.Context(t, 10*time.Second)
	_, _ = c.Open(ctx, "http://x/")
	_, _ = c.Navigate(ctx, "tab", "http://x/")
	_, _ = c.Reload(ctx, "tab")
	_, _ = c.Tabs(ctx)
	_, _ = c.DOM(ctx, "tab", 0)
	_, _ = c.Clickables(ctx, "tab")
	_, _ = c.Scroll(ctx, "tab", 0, 1)
	_, _ = c.Cursor(ctx, "tab", 1, 1)
	_ = c.CloseTab(ctx, "tab")
	_, _ = c.Dialog(ctx, "tab", true, "")
	want := []string{
		"Long POST /browser/tabs", "Long POST /browser/navigate", "Long POST /browser/reload",
		"HTTP GET /browser/tabs", "HTTP GET /browser/dom", "HTTP GET /browser/clickables",
		"HTTP POST /browser/scroll", "HTTP POST /browser/cursor", "HTTP POST /browser/close", "HTTP POST /browser/dialog",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
}
