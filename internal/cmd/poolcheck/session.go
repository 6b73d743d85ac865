package main

import (
	"context"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// session is one browserless session reached with tabguard.Connect: its
// browser, a BrowserWatcher of it, and one loaded tab watched.
type session struct {
	b    *rod.Browser
	bw   *tabguard.BrowserWatcher
	page *rod.Page // rod's own page of the tab
	w    *tabguard.Watcher
	// began is when Connect was called: browserless starts the session's
	// TIMEOUT as the request reaches it, a moment later.
	began  time.Time
	closed bool
}

// openSession connects to p, opens a tab at pageURL and watches it with
// opts, within ctx. The caller should call close when finished.
func openSession(ctx context.Context, p *pool, pageURL string, opts *tabguard.Options) (*session, error) {
	return openSessionWith(ctx, p, pageURL, opts, nil)
}

// openSessionWith is openSession with Connect's options.
func openSessionWith(ctx context.Context, p *pool, pageURL string, opts *tabguard.Options, copts *tabguard.ConnectOptions) (*session, error) {
	s := &session{began: time.Now()}
	var err error
	if s.b, err = tabguard.ConnectWith(ctx, p.url, copts); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if err := s.open(ctx, pageURL, opts); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *session) open(ctx context.Context, pageURL string, opts *tabguard.Options) error {
	var err error
	if s.bw, err = tabguard.WatchBrowser(s.b, opts); err != nil {
		return fmt.Errorf("watch the browser: %w", err)
	}
	// The tab starts blank and loads the page once watched. Measured here
	// under load: of a tab opened at the page's URL, whose load ended while
	// Watch started, the watcher at times never learned Loaded, though
	// document.readyState read "complete".
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(s.b.Context(ctx))
	if err != nil {
		return fmt.Errorf("open a tab: %w", err)
	}
	if s.page, err = s.b.Context(ctx).PageFromTarget(target.TargetID); err != nil {
		return fmt.Errorf("attach to the tab: %w", err)
	}
	if s.w, err = s.bw.Watch(s.page); err != nil {
		return fmt.Errorf("watch the tab: %w", err)
	}
	if err := s.w.Navigate(ctx, pageURL); err != nil {
		return fmt.Errorf("navigate to the page: %w", err)
	}
	if _, err = s.w.Wait(ctx, func(st tabguard.TabState) bool { return st.Loaded }); err != nil {
		return fmt.Errorf("wait for the tab's load: %w (the watcher's state: %+v; %s)", err, s.w.State(), s.readyState())
	}
	return nil
}

// close ends the session: the watchers, then the browser, which for
// browserless ends the session and its Chromium. The browser's Close is
// bounded, as a pool that is gone may never answer it. Calling close
// again does nothing.
func (s *session) close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.bw != nil {
		_ = s.bw.Close()
	}
	closeBrowser(s.b)
}

// version asks the browser behind the session for its product name, such
// as "Chrome/156.0.8078.114".
func (s *session) version(ctx context.Context) (string, error) {
	v, err := proto.BrowserGetVersion{}.Call(s.b.Context(ctx))
	if err != nil {
		return "", err
	}
	return v.Product, nil
}

// evalAsync starts js on the session's watcher under ctx and returns a
// channel that gets its error and when it came.
func (s *session) evalAsync(ctx context.Context, js string) <-chan answer {
	done := make(chan answer, 1)
	go func() {
		_, err := s.w.Eval(ctx, js)
		done <- answer{err: err, at: time.Now()}
	}()
	return done
}

// answer is what a call returned, and when.
type answer struct {
	err error
	at  time.Time
}

// await returns the answer from done, or an error when none came within d.
func await(done <-chan answer, d time.Duration) (answer, error) {
	select {
	case a := <-done:
		return a, nil
	case <-time.After(d):
		return answer{}, fmt.Errorf("no answer within %v", d)
	}
}

// closeBrowser closes b within a few seconds.
func closeBrowser(b *rod.Browser) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.Context(ctx).Close()
}

// readyState asks the page, through rod, for its document.readyState.
func (s *session) readyState() string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := proto.RuntimeEvaluate{Expression: "document.readyState", ReturnByValue: true}.Call(s.page.Context(ctx))
	if err != nil {
		return "document.readyState: " + err.Error()
	}
	return "document.readyState: " + res.Result.Value.String()
}
