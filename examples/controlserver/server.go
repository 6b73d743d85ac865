package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// DefaultLoadTimeout bounds the page load of POST /browser/tabs. With
// openTimeout it stays below the client's 300 s LoadCallTimeout, so the
// server's reason arrives before the client gives up.
const DefaultLoadTimeout = 240 * time.Second

// openTimeout bounds opening the blank tab that POST /browser/tabs loads into.
const openTimeout = 10 * time.Second

// errUnknownTab is the 400 answer for a tab ID the server does not know.
var errUnknownTab = errors.New("unknown tab")

// badRequestError is a 400 answer: the caller must change the request.
type badRequestError struct{ msg string }

func (e *badRequestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &badRequestError{msg: fmt.Sprintf(format, args...)}
}

// Server is an HTTP control server over one rod browser. One
// [tabguard.BrowserWatcher] follows the browser; every tab the server opens
// gets a [tabguard.Watcher] from it, and every handler goes through that, so
// each answer comes in time and a dead tab answers with its real reason.
// The caller should call Close when finished.
type Server struct {
	browser     *rod.Browser
	bw          *tabguard.BrowserWatcher
	loadTimeout time.Duration

	mu   sync.Mutex
	tabs map[string]*tab // by target ID
}

// tab is one open tab and the watcher every call on it goes through.
type tab struct {
	page *rod.Page
	w    *tabguard.Watcher
}

// NewServer returns a server over b. opts configures each tab's watcher and
// may be nil; loadTimeout <= 0 means DefaultLoadTimeout.
func NewServer(b *rod.Browser, opts *tabguard.Options, loadTimeout time.Duration) (*Server, error) {
	if loadTimeout <= 0 {
		loadTimeout = DefaultLoadTimeout
	}
	bw, err := tabguard.WatchBrowser(b, opts)
	if err != nil {
		return nil, err
	}
	return &Server{browser: b, bw: bw, loadTimeout: loadTimeout, tabs: map[string]*tab{}}, nil
}

// Handler returns the server's routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /browser/tabs", s.handleOpen)
	mux.HandleFunc("GET /browser/dom", s.handleDOM)
	mux.HandleFunc("GET /browser/clickables", s.handleClickables)
	mux.HandleFunc("POST /browser/scroll", s.handleScroll)
	mux.HandleFunc("POST /browser/cursor", s.handleCursor)
	return mux
}

// Open opens a tab, starts its watcher and navigates it to url, waiting at
// most the load timeout for the page's load event. When the load fails, the
// tab stays open (its watcher now refuses evals with the reason) and Open
// returns its ID with the error.
func (s *Server) Open(ctx context.Context, url string) (string, error) {
	if url == "" {
		return "", badRequest("missing url: pass the page to open, such as http://127.0.0.1:8080/")
	}
	octx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(s.browser.Context(octx))
	if err != nil {
		return "", fmt.Errorf("open tab: %w", err)
	}
	// Attach with the browser's own context: rod ties the page's session to
	// it, and ends it when the tab closes, not when this request ends.
	page, err := s.browser.PageFromTarget(target.TargetID)
	if err != nil {
		return "", fmt.Errorf("attach to tab: %w", err)
	}
	w, err := s.bw.Watch(page)
	if err != nil {
		return "", errors.Join(fmt.Errorf("watch tab: %w", err), s.closeTarget(target.TargetID))
	}
	id := string(target.TargetID)
	s.mu.Lock()
	s.tabs[id] = &tab{page: page, w: w}
	s.mu.Unlock()

	lctx, cancel := context.WithTimeout(ctx, s.loadTimeout)
	defer cancel()
	err = w.Navigate(lctx, url)
	if err == nil {
		_, err = w.Wait(lctx, func(s tabguard.TabState) bool { return s.Loaded })
	}
	if err != nil {
		if errors.Is(lctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return id, fmt.Errorf("load %s: not loaded within %v: %w", url, s.loadTimeout, err)
		}
		return id, fmt.Errorf("load %s: %w", url, err)
	}
	return id, nil
}

// tab returns the open tab with the given ID, or a 400 error.
func (s *Server) tab(id string) (*tab, error) {
	if id == "" {
		return nil, badRequest("missing tab: pass the ID that POST /browser/tabs returned")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tabs[id]
	if !ok {
		return nil, fmt.Errorf("%w %q: open one with POST /browser/tabs", errUnknownTab, id)
	}
	return t, nil
}

// Close stops watching, and closes the tabs the server opened.
func (s *Server) Close() error {
	s.mu.Lock()
	tabs := s.tabs
	s.tabs = map[string]*tab{}
	s.mu.Unlock()
	errs := []error{s.bw.Close()}
	for _, t := range tabs {
		errs = append(errs, s.closeTarget(t.page.TargetID))
	}
	return errors.Join(errs...)
}

// closeTarget closes a tab within 5 s.
func (s *Server) closeTarget(id proto.TargetTargetID) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := (proto.TargetCloseTarget{TargetID: id}).Call(s.browser.Context(ctx)); err != nil {
		return fmt.Errorf("close tab %s: %w", id, err)
	}
	return nil
}
