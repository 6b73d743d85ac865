package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tabguard/tabguard"
)

// resumedRow cuts a session's connection, through a TCP proxy of its own,
// while another client of the same browser keeps browserless from closing
// it, with an eval in flight: the eval must answer ErrConnectionDropped,
// resumed, and the next eval must answer.
func resumedRow(ctx context.Context, p *pool, pageURL string) row {
	r := row{name: "connection cut by a proxy, with an eval in flight, while another client holds the browser (connected to `/devtools/browser/<id>`)"}
	// The holder: a session of the pool's own, which browserless keeps
	// while a client is connected.
	holder, err := tabguard.ConnectWith(ctx, p.url, &tabguard.ConnectOptions{Resume: -1})
	if err != nil {
		return r.miss("connect the holder: %v", err)
	}
	defer closeBrowser(holder)
	id, err := p.browserID(ctx)
	if err != nil {
		return r.miss("%v", err)
	}
	cut, err := startCutter(p.base)
	if err != nil {
		return r.miss("%v", err)
	}
	defer cut.close()
	s := &session{began: time.Now()}
	wsURL := "ws://" + cut.addr() + "/devtools/browser/" + id + "?token=" + p.token
	if s.b, err = tabguard.Connect(ctx, wsURL); err != nil {
		return r.miss("connect to the browser: %v", err)
	}
	defer func() { _ = tabguard.Disconnect(s.b) }() // the holder's Close ends the browser
	err = s.open(ctx, pageURL, &tabguard.Options{EvalTimeout: time.Minute})
	if s.bw != nil {
		defer func() { _ = s.bw.Close() }()
	}
	if err != nil {
		return r.miss("%v", err)
	}
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	done := s.evalAsync(ectx, neverSettles)
	time.Sleep(300 * time.Millisecond) // let it reach the page
	start := time.Now()
	cut.cutAll()
	a, err := await(done, 30*time.Second)
	if err != nil {
		return r.miss("the eval in flight: %v", err)
	}
	_, nextErr := s.w.Eval(ectx, `() => 1`)
	next := time.Since(start)
	r.returned = code(a.err) + "; the next eval: " + code(nextErr)
	r.took = dur(a.at.Sub(start)) + " to the answer in flight, " + dur(next) + " to the next eval's answer"
	switch {
	case !errors.Is(a.err, tabguard.ErrConnectionDropped) || !strings.Contains(a.err.Error(), "resumed after"):
		return r.miss("the eval in flight got %v, want ErrConnectionDropped, resumed", a.err)
	case nextErr != nil:
		return r.miss("the next eval: %v", nextErr)
	case cut.accepted() != 2:
		return r.miss("%d connections through the proxy, want 2", cut.accepted())
	}
	return r
}

// notResumedRow cuts a session's connection, through a TCP proxy of its
// own, with no other client: browserless closes the browser, and the dial
// again reaches a new one, which the resume must tell from the old one.
func notResumedRow(ctx context.Context, p *pool, pageURL string) row {
	r := row{name: "connection cut by a proxy, with an eval in flight, and no other client (browserless closes the browser; `/chromium` starts another)"}
	cut, err := startCutter(p.base)
	if err != nil {
		return r.miss("%v", err)
	}
	defer cut.close()
	s := &session{began: time.Now()}
	wsURL := strings.Replace(p.url, strings.TrimPrefix(p.base, "http://"), cut.addr(), 1)
	if s.b, err = tabguard.Connect(ctx, wsURL); err != nil {
		return r.miss("connect: %v", err)
	}
	defer s.close()
	if err := s.open(ctx, pageURL, &tabguard.Options{EvalTimeout: time.Minute}); err != nil {
		return r.miss("%v", err)
	}
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	done := s.evalAsync(ectx, neverSettles)
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	cut.cutAll()
	a, err := await(done, 30*time.Second)
	if err != nil {
		return r.miss("the eval in flight: %v", err)
	}
	r.returned = code(a.err)
	r.took = dur(a.at.Sub(start)) + " after the cut"
	if !errors.Is(a.err, tabguard.ErrBrowserGone) {
		return r.miss("got %v, want ErrBrowserGone", a.err)
	}
	return r
}

// browserID asks the pool for its only browser.
func (p *pool) browserID(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/sessions?token="+p.token, nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("list the sessions: %w", err)
	}
	defer res.Body.Close()
	var sessions []struct {
		BrowserID string `json:"browserId"`
	}
	if err := json.NewDecoder(res.Body).Decode(&sessions); err != nil {
		return "", fmt.Errorf("list the sessions: %w", err)
	}
	// One entry for the browser and one for each of its pages.
	ids := map[string]bool{}
	for _, s := range sessions {
		if s.BrowserID != "" {
			ids[s.BrowserID] = true
		}
	}
	if len(ids) != 1 {
		return "", fmt.Errorf("the pool lists %d browsers, want 1", len(ids))
	}
	for id := range ids {
		return id, nil
	}
	return "", nil
}

// cutter is a TCP proxy on 127.0.0.1 in front of a pool that cuts every
// connection on demand, as a proxy or a load balancer that restarts does.
type cutter struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	n      int
	wg     sync.WaitGroup
}

func startCutter(base string) (*cutter, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &cutter{ln: ln, target: strings.TrimPrefix(base, "http://")}
	c.wg.Add(1)
	go c.accept()
	return c, nil
}

func (c *cutter) addr() string { return c.ln.Addr().String() }

func (c *cutter) accept() {
	defer c.wg.Done()
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", c.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		c.mu.Lock()
		c.conns = append(c.conns, client, server)
		c.n++
		c.mu.Unlock()
		c.wg.Add(2)
		go c.pipe(server, client)
		go c.pipe(client, server)
	}
}

func (c *cutter) pipe(dst, src net.Conn) {
	defer c.wg.Done()
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
}

// cutAll closes both sockets of every connection.
func (c *cutter) cutAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		_ = conn.Close()
	}
	c.conns = nil
}

// accepted is the number of connections made through it.
func (c *cutter) accepted() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *cutter) close() {
	_ = c.ln.Close()
	c.cutAll()
	c.wg.Wait()
}
