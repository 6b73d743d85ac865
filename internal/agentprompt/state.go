package agentprompt

import (
	"context"
	"sync"

	"github.com/tabguard/tabguard"
)

// State is what an agent set on each tab through its server: the origins
// whose sign-ins the server may answer there, and the files for its next
// file chooser. The watchers' callbacks ([State.Credentials],
// [State.FileChooser]) read it; nothing else gives a page credentials or
// files. A State is safe for concurrent use; make one with NewState.
type State struct {
	cfg   Config
	tabOf func(frame string) string

	mu      sync.Mutex
	signIns map[string]map[string]bool // tab ID -> origins allowed
	files   map[string][]string        // tab ID -> absolute paths for its next chooser
}

// NewState returns a State that answers with what cfg has. tabOf returns
// the ID of the server's tab that holds a frame ID, or "" (see TabOf); the
// callbacks call it without holding the state's lock.
func NewState(cfg Config, tabOf func(frame string) string) *State {
	return &State{cfg: cfg, tabOf: tabOf, signIns: map[string]map[string]bool{}, files: map[string][]string{}}
}

// Config returns the configuration the state answers with.
func (p *State) Config() Config { return p.cfg }

// SetCallbacks makes p's callbacks o's Credentials and FileChooser where
// the configuration has something to give, and clears them where it has
// not: unconfigured, the browser refuses the sign-in or cancels the
// chooser itself.
func (p *State) SetCallbacks(o *tabguard.Options) {
	o.Credentials, o.FileChooser = nil, nil
	if len(p.cfg.Credentials) > 0 {
		o.Credentials = p.Credentials
	}
	if p.cfg.UploadDir != "" {
		o.FileChooser = p.FileChooser
	}
}

// AllowSignIn lets the server answer tab's sign-ins at origin, as
// NormalOrigin writes it.
func (p *State) AllowSignIn(tab, origin string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.signIns[tab] == nil {
		p.signIns[tab] = map[string]bool{}
	}
	p.signIns[tab][origin] = true
}

// SetFiles gives tab's next file chooser files, absolute paths (see
// Config.UploadPaths), replacing any not taken.
func (p *State) SetFiles(tab string, files []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[tab] = files
}

// Forget drops what was set on tab, which is gone.
func (p *State) Forget(tab string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.signIns, tab)
	delete(p.files, tab)
}

// Credentials is the watchers' Options.Credentials: the configured
// credentials of the origin that asks, when the agent allowed it on the
// tab whose page or iframe asks; otherwise none, and the page reads
// ErrSignInRequired. A proxy never gets a site's credentials.
func (p *State) Credentials(_ context.Context, s tabguard.SignIn) (tabguard.Credentials, error) {
	origin, err := NormalOrigin(s.Origin)
	if s.Proxy || err != nil {
		return tabguard.Credentials{}, nil
	}
	return p.credentials(p.tabOf(s.FrameID), origin), nil
}

// credentials are the configured credentials of origin when the agent
// allowed it on tab, and none otherwise.
func (p *State) credentials(tab, origin string) tabguard.Credentials {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.signIns[tab][origin] {
		return tabguard.Credentials{}
	}
	return p.cfg.Credentials[origin]
}

// FileChooser is the watchers' Options.FileChooser: the files the agent
// gave the tab whose page or iframe opened the chooser, once; with none,
// the chooser is cancelled.
func (p *State) FileChooser(_ context.Context, c tabguard.FileChooser) ([]string, error) {
	return p.takeFiles(p.tabOf(c.FrameID)), nil
}

// takeFiles returns the files for tab's next chooser, once.
func (p *State) takeFiles(tab string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	files := p.files[tab]
	delete(p.files, tab)
	return files
}
