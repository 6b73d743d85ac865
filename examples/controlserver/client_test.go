package main

import (
	"net"
	"sync"
	"testing"
	"time"

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
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- call() }()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.Contains(t, err.Error(), "Client.Timeout exceeded")
				assert.Less(t, time.Since(start), 3*time.Second)
			case <-time.After(10 * time.Second):
				t.Fatal("the client still waits on a server that never answers")
			}
		})
	}
}
