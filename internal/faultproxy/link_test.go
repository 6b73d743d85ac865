package faultproxy

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// echo serves on 127.0.0.1, writing back what each connection sends, until
// t ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	return ln.Addr().String()
}

// A delayed link answers each message a round trip after it was sent, in
// order, and does not hold one message back until the one before arrives.
func TestDelayPipelines(t *testing.T) {
	const (
		delay = 100 * time.Millisecond
		gap   = 20 * time.Millisecond
		n     = 5
	)
	p := Start(t, echo(t), func(p *Proxy) { p.Delay = delay })
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))

	sent := make([]time.Time, n)
	answered := make([]time.Time, n)
	done := make(chan error, 1)
	go func() {
		for i := range n {
			buf := make([]byte, 3)
			if _, err := io.ReadFull(c, buf); err != nil {
				done <- err
				return
			}
			if want := fmt.Sprintf("m%d\n", i); string(buf) != want {
				done <- fmt.Errorf("answer %d = %q; want %q", i, buf, want)
				return
			}
			answered[i] = time.Now()
		}
		done <- nil
	}()
	for i := range n {
		sent[i] = time.Now()
		_, err := fmt.Fprintf(c, "m%d\n", i)
		require.NoError(t, err)
		time.Sleep(gap)
	}
	require.NoError(t, <-done)
	for i := range n {
		if rtt := answered[i].Sub(sent[i]); rtt < 2*delay {
			t.Errorf("answer %d came %v after it was sent; want at least %v", i, rtt, 2*delay)
		}
	}
	// One message a delay would answer the last at n round trips; a
	// pipelining link, one round trip after it was sent. The slack is for a
	// loaded machine.
	if last, limit := answered[n-1].Sub(sent[0]), (n-1)*gap+2*delay+300*time.Millisecond; last > limit {
		t.Errorf("last answer came %v after the first send; want under %v", last, limit)
	}
}
