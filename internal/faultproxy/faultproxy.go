// Package faultproxy is a TCP proxy for tests, on 127.0.0.1, between
// DevTools clients and a real browser, that adds the failures a browser
// pool or a proxy in front of one brings. Both backends' remote tests use it.
package faultproxy

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Proxy forwards TCP between DevTools clients and a real browser, all
// on 127.0.0.1, and adds the failures a browser pool or a proxy in front of
// one brings: it stops forwarding, resets, writes bytes of its own into the
// upgraded socket, closes connections that stay idle, or never admits them.
type Proxy struct {
	ln       net.Listener
	target   string       // host:port of the browser
	reapIdle atomic.Int64 // a time.Duration; see ReapIdle
	refuse   atomic.Bool  // see Refuse
	delay    atomic.Int64 // a time.Duration; see SetDelay
	accepted atomic.Int64 // connections accepted
	// Queue holds every connection without ever reaching the browser.
	Queue bool
	// Delay, set in Start's configure func, is a one-way latency added to
	// each direction, as a distant browser's link adds it: each chunk read
	// is written delay after it was read, in order, while later chunks are
	// read meanwhile, so a connection pipelines as a real link does and a
	// round trip costs 2*Delay. The TCP handshake, answered here, costs
	// nothing; a WebSocket upgrade costs a round trip.
	Delay time.Duration

	mu    sync.Mutex
	conns []*proxyConn
	// Closed is closed when a queued client closes its socket.
	Closed chan struct{}
	wg     sync.WaitGroup
}

type proxyConn struct {
	client, server net.Conn
	stall          chan struct{} // closed to stop forwarding both ways
	done           chan struct{} // closed when both pipes have ended
	lastSent       atomic.Int64  // unix nanoseconds of the client's last bytes
}

// Start listens on 127.0.0.1 in front of target and stops when t ends.
func Start(t testing.TB, target string, configure func(*Proxy)) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &Proxy{ln: ln, target: target, Closed: make(chan struct{})}
	if configure != nil {
		configure(p)
	}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// URL is wsURL, a browser's DevTools URL, pointed at the proxy.
func (p *Proxy) URL(wsURL string) string {
	return strings.Replace(wsURL, p.target, p.ln.Addr().String(), 1)
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.serve(c)
		}()
	}
}

func (p *Proxy) serve(client net.Conn) {
	p.accepted.Add(1)
	if p.refuse.Load() {
		_ = client.Close() // a pool that restarts: the dial fails
		return
	}
	if p.Queue {
		// A full pool: hold the socket, answer nothing, notice the close.
		_, _ = io.Copy(io.Discard, client)
		_ = client.Close()
		select {
		case <-p.Closed:
		default:
			close(p.Closed)
		}
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	pc := &proxyConn{client: client, server: server, stall: make(chan struct{}), done: make(chan struct{})}
	pc.lastSent.Store(time.Now().UnixNano())
	p.mu.Lock()
	p.conns = append(p.conns, pc)
	p.mu.Unlock()
	reaped := make(chan struct{})
	go func() { defer close(reaped); pc.reap(&p.reapIdle) }()
	var pipes sync.WaitGroup
	pipes.Add(2)
	delay := p.Delay
	if d := time.Duration(p.delay.Load()); d > 0 {
		delay = d
	}
	go func() { defer pipes.Done(); pc.pipe(server, client, true, delay) }()
	go func() { defer pipes.Done(); pc.pipe(client, server, false, delay) }()
	pipes.Wait()
	close(pc.done)
	<-reaped
}

// SetDelay makes the connections made from now on delay each direction
// by d, as Delay does from the start: a test sets up over a fast link,
// and the connections a resume makes run over a slow one.
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// Refuse makes the proxy close, from now on, every new connection at
// once, as a pool or a load balancer that restarts does; false lets them
// through again.
func (p *Proxy) Refuse(refuse bool) { p.refuse.Store(refuse) }

// Accepted is the number of connections the proxy accepted.
func (p *Proxy) Accepted() int { return int(p.accepted.Load()) }

// CutAll ends every connection, both sockets, as a proxy that restarts
// does: the browser behind it lives on.
func (p *Proxy) CutAll() {
	p.each(func(pc *proxyConn) { _ = pc.client.Close(); _ = pc.server.Close() })
}

// ReapIdle makes the proxy close, from now on, each connection whose client
// sends nothing for idle, as a pool does with idle sessions; 0 stops it. A
// test sets it once its tab is open: the client is quiet while Chrome
// opens a tab, which takes seconds on a busy machine.
func (p *Proxy) ReapIdle(idle time.Duration) {
	p.each(func(pc *proxyConn) { pc.lastSent.Store(time.Now().UnixNano()) })
	p.reapIdle.Store(int64(idle))
}

// pipe copies src to dst, each chunk delay after it was read, until either
// ends; once stalled it holds what it read, keeping both sockets open.
func (pc *proxyConn) pipe(dst, src net.Conn, fromClient bool, delay time.Duration) {
	defer dst.Close()
	defer src.Close()
	write := dst.Write
	if delay > 0 {
		l := startLink(dst, src, delay)
		defer l.close() // deliver what is under way before dst closes
		write = l.write
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if fromClient {
				pc.lastSent.Store(time.Now().UnixNano())
			}
			select {
			case <-pc.stall:
				_, _ = io.Copy(io.Discard, src) // swallow everything from now on
				return
			default:
			}
			if _, err := write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// reap closes the connection once its client sent nothing for the idle
// time the proxy sets, if it sets one, and returns when the connection
// ends.
func (pc *proxyConn) reap(idle *atomic.Int64) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-pc.done:
			return
		case <-tick.C:
		}
		d := time.Duration(idle.Load())
		if d > 0 && time.Since(time.Unix(0, pc.lastSent.Load())) > d {
			_ = pc.client.Close()
			_ = pc.server.Close()
			return
		}
	}
}

// each runs f on every connection the proxy forwards.
func (p *Proxy) each(f func(*proxyConn)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pc := range p.conns {
		f(pc)
	}
}

// StallAll stops forwarding in both directions and keeps the sockets open.
func (p *Proxy) StallAll() { p.each(func(pc *proxyConn) { close(pc.stall) }) }

// ResetAll ends each client's socket with a TCP reset.
func (p *Proxy) ResetAll() {
	p.each(func(pc *proxyConn) {
		if tc, ok := pc.client.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = pc.client.Close()
	})
}

// SendAll stops forwarding, writes raw bytes to each client and closes
// it, as browserless does at its session timeout.
func (p *Proxy) SendAll(raw []byte) {
	p.each(func(pc *proxyConn) {
		close(pc.stall)
		time.Sleep(20 * time.Millisecond) // let a frame under way finish
		_, _ = pc.client.Write(raw)
		_ = pc.client.Close()
	})
}

// CloseFrame is a WebSocket close frame from a server, with code and text.
func CloseFrame(code uint16, text string) []byte {
	payload := binary.BigEndian.AppendUint16(nil, code)
	payload = append(payload, text...)
	return append([]byte{0x88, byte(len(payload))}, payload...)
}

// close stops the proxy and ends every connection.
func (p *Proxy) close() {
	_ = p.ln.Close()
	p.each(func(pc *proxyConn) { _ = pc.client.Close(); _ = pc.server.Close() })
	p.wg.Wait()
}
