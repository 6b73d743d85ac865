package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
	"github.com/tabguard/tabguard/tabstate"
)

// DefaultLoadTimeout bounds the page load of POST /browser/tabs,
// /browser/navigate and /browser/reload, opening the tab included. It stays
// below the client's 300 s LoadCallTimeout, so the server's reason arrives
// before the client gives up.
const DefaultLoadTimeout = 240 * time.Second

// defaultBlocked are the origins the server never opens unless told
// otherwise: the cloud metadata services.
var defaultBlocked = []string{"169.254.169.254", "metadata.google.internal"}

// badRequestError is a 400 answer: the caller must change the request.
type badRequestError struct{ msg string }

func (e *badRequestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &badRequestError{msg: fmt.Sprintf(format, args...)}
}

// Server is an HTTP control server over one rod browser. One
// [tabguard.BrowserWatcher] follows the browser and gives each tab a call
// touches a [tabguard.Watcher]; every handler goes through that, so each
// answer comes in time and a dead tab answers with its real reason.
// Handler serves the routes alone; Guard puts them behind the checks a
// server on a user's machine needs. The caller should call Close when
// finished.
type Server struct {
	bw          *tabguard.BrowserWatcher
	urls        *tabguard.URLPolicy // what the tabs may open, and so what their iframes may be read at
	loadTimeout time.Duration
	metrics     *metrics           // nil unless ServerConfig.Metrics
	prompts     *agentprompt.State // what POST /browser/prompt set, and what it may set
	snaps       *agentprompt.Snapshots

	mu   sync.Mutex
	tabs map[string]*tabguard.Watcher // by target ID
}

// ServerConfig configures NewServer. A nil or zero ServerConfig gives the
// defaults.
type ServerConfig struct {
	// Watch configures each tab's watcher; nil means tabguard's defaults.
	// The server always stops a runaway script at the deadline
	// (TerminateOnTimeout), so the tab answers the next call, and opens
	// only http and https URLs, never the cloud metadata hosts, unless
	// Watch.URLs says otherwise; it reads no iframe at a URL it would not
	// open.
	Watch *tabguard.Options
	// LoadTimeout bounds a page load (see DefaultLoadTimeout); 0 or less
	// means DefaultLoadTimeout.
	LoadTimeout time.Duration
	// Metrics makes Handler serve GET /metrics, the watchers' calls,
	// refusals, timeouts, crashes and tabs in Prometheus's text format,
	// and sets Watch.Trace to report them, replacing any Trace given.
	// Off by default: no /metrics route and no Trace.
	Metrics bool
	// CredentialsFile names a JSON list of sign-in credentials by origin,
	// [{"origin": "https://host[:port]", "username": "...", "password_env": "NAME"}],
	// each password read from the environment variable it names as the
	// server starts; POST /browser/prompt lets a tab use them. Empty: the
	// server signs in nowhere.
	CredentialsFile string
	// UploadDir is the only directory POST /browser/prompt may give a file
	// chooser files from. Empty: every chooser is cancelled.
	UploadDir string
	// LookupEnv reads the passwords CredentialsFile names; nil means
	// os.LookupEnv.
	LookupEnv func(name string) (string, bool)
}

// NewServer returns a server over b; cfg may be nil.
func NewServer(b *rod.Browser, cfg *ServerConfig) (*Server, error) {
	var c ServerConfig
	if cfg != nil {
		c = *cfg
	}
	if c.LoadTimeout <= 0 {
		c.LoadTimeout = DefaultLoadTimeout
	}
	o := tabguard.Options{}
	if c.Watch != nil {
		o = *c.Watch
	}
	o.TerminateOnTimeout = true
	if o.URLs == nil {
		o.URLs = &tabguard.URLPolicy{BlockedOrigins: defaultBlocked}
	}
	if c.LookupEnv == nil {
		c.LookupEnv = os.LookupEnv
	}
	// A configuration that cannot work fails the start.
	pc, err := agentprompt.LoadConfig(c.CredentialsFile, c.UploadDir, o.URLs, c.LookupEnv)
	if err != nil {
		return nil, err
	}
	s := &Server{urls: o.URLs, loadTimeout: c.LoadTimeout, tabs: map[string]*tabguard.Watcher{}}
	s.prompts = agentprompt.NewState(pc, s.tabOf)
	// Only what POST /browser/prompt set on a tab is given to its pages:
	// a sign-in it did not allow is refused, a chooser given no files
	// cancelled. Unconfigured, the browser refuses and cancels them itself.
	o.Advice = promptAdvice(pc)
	o.Advice.Word = wordAction // an action's advice names the endpoints
	s.snaps = agentprompt.NewSnapshots(func(frames []tabguard.FrameInfo, id string) error { return frameReach(s.urls, frames, id) })
	s.prompts.SetCallbacks(&o)
	if c.Metrics {
		m, err := newMetrics()
		if err != nil {
			return nil, err
		}
		s.metrics = m
		o.Trace = m.trace()
	}
	bw, err := tabguard.WatchBrowser(b, &o)
	if err != nil {
		if s.metrics != nil {
			_ = s.metrics.close()
		}
		return nil, err
	}
	s.bw = bw
	return s, nil
}

// Handler returns the server's routes, GET /metrics too when the config
// asks for it, with no checks in front: serve Guard(addr, token,
// s.Handler()) to anything but a test, so /metrics needs the token as
// every route does.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /browser/tabs", s.handleTabs)
	mux.HandleFunc("POST /browser/tabs", s.handleOpen)
	mux.HandleFunc("POST /browser/navigate", s.handleNavigate)
	mux.HandleFunc("POST /browser/reload", s.handleReload)
	mux.HandleFunc("POST /browser/close", s.handleClose)
	mux.HandleFunc("POST /browser/dialog", s.handleDialog)
	mux.HandleFunc("POST /browser/prompt", s.handlePrompt)
	mux.HandleFunc("POST /browser/click", s.handleClick)
	mux.HandleFunc("GET /browser/frames", s.handleFrames)
	mux.HandleFunc("GET /browser/dom", s.handleDOM)
	mux.HandleFunc("GET /browser/snapshot", s.handleSnapshot)
	mux.HandleFunc("POST /browser/act", s.handleAct)
	mux.HandleFunc("GET /browser/clickables", s.handleClickables)
	mux.HandleFunc("POST /browser/scroll", s.handleScroll)
	mux.HandleFunc("POST /browser/cursor", s.handleCursor)
	if s.metrics != nil {
		mux.Handle("GET /metrics", s.metrics.handler())
	}
	return mux
}

// Open opens a tab at url and waits for the page's load event, all within
// the load timeout. When the load fails, the tab stays open (its watcher
// refuses calls with the reason) and Open returns its ID with a *loadError.
// A URL the policy refuses opens nothing.
func (s *Server) Open(ctx context.Context, url string) (string, error) {
	if url == "" {
		return "", badRequest("missing url: pass the page to open, such as http://127.0.0.1:8080/")
	}
	lctx, cancel := context.WithTimeout(ctx, s.loadTimeout)
	defer cancel()
	w, err := s.bw.Open(lctx, url)
	id := ""
	if w != nil {
		w = s.keep(w)
		id = string(w.TargetID())
		if err == nil {
			err = loaded(lctx, w)
		}
	}
	if err == nil {
		return id, nil
	}
	// The load timeout ends what runs out of it, the attach to a new tab
	// as well as its load; any other failure with no tab is the caller's
	// (a blocked URL, a browser gone).
	timedOut := errors.Is(lctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	if w == nil && !timedOut {
		return "", err
	}
	le := &loadError{url: url, err: err}
	if timedOut {
		le.within = s.loadTimeout
	}
	return id, le
}

// load runs a navigation on tab id (Navigate or Reload) and waits for the
// page's load event, within the load timeout.
func (s *Server) load(ctx context.Context, id string, nav func(context.Context, *tabguard.Watcher) error) (*tabguard.Watcher, error) {
	ctx, cancel := context.WithTimeout(ctx, s.loadTimeout)
	defer cancel()
	w, err := s.tab(ctx, id)
	if err == nil {
		err = nav(ctx, w)
	}
	if err == nil {
		err = loaded(ctx, w)
	}
	return w, err
}

// loaded waits for the page's load event, or the refusal that prevents it.
func loaded(ctx context.Context, w *tabguard.Watcher) error {
	_, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	return err
}

// tab returns the watcher of tab id: one the server opened, or a tab the
// browser lists (a popup), which it then watches.
func (s *Server) tab(ctx context.Context, id string) (*tabguard.Watcher, error) {
	if id == "" {
		return nil, badRequest("missing tab: pass an ID from POST /browser/tabs or GET /browser/tabs")
	}
	s.mu.Lock()
	w, ok := s.tabs[id]
	s.mu.Unlock()
	if ok {
		return w, nil
	}
	for _, ti := range s.bw.Tabs() {
		if string(ti.TargetID) == id {
			w, err := s.bw.WatchTarget(ctx, ti.TargetID)
			if err != nil {
				return nil, err
			}
			return s.keep(w), nil
		}
	}
	return nil, fmt.Errorf("%w %q: list tabs with GET /browser/tabs or open one with POST /browser/tabs", errUnknownTab, id)
}

// keep remembers w under its tab ID, unless a watcher of that tab is kept
// already: then w closes, and keep returns the other. It forgets the tabs
// that closed since, so a long-running server does not collect them.
func (s *Server) keep(w *tabguard.Watcher) *tabguard.Watcher {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, old := range s.tabs {
		if old.State().Closed {
			_ = old.Close()
			delete(s.tabs, id)
			s.prompts.Forget(id)
			s.snaps.Forget(id)
		}
	}
	if old, ok := s.tabs[string(w.TargetID())]; ok {
		_ = w.Close()
		return old
	}
	s.tabs[string(w.TargetID())] = w
	return w
}

// closeTab closes tab id from the browser side, whatever its state, and
// forgets it.
func (s *Server) closeTab(ctx context.Context, id string) error {
	w, err := s.tab(ctx, id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.tabs, id)
	s.mu.Unlock()
	s.prompts.Forget(id)
	s.snaps.Forget(id)
	return w.CloseTab(ctx)
}

// Close stops watching, closes the tabs the server opened or took over,
// and stops the metrics.
func (s *Server) Close() error {
	s.mu.Lock()
	tabs := s.tabs
	s.tabs = map[string]*tabguard.Watcher{}
	s.mu.Unlock()
	var errs []error
	for _, w := range tabs {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, w.CloseTab(ctx))
		cancel()
	}
	errs = append(errs, s.bw.Close())
	if s.metrics != nil {
		errs = append(errs, s.metrics.close())
	}
	return errors.Join(errs...)
}

// tabInfo is what GET /browser/tabs says of one tab.
func tabInfo(ti tabguard.TabInfo) TabInfo {
	info := TabInfo{Tab: string(ti.TargetID), URL: tabstate.ShownURL(ti.URL), Title: ti.Title, Opener: string(ti.OpenerID), Watched: ti.Watched}
	if ti.Refusal != nil {
		_, info.Problem = apiError(ti.Refusal)
	}
	return info
}
