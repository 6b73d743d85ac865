package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// Permissions. Measured on Chromium 156: headless Chrome denies a page's
// permission request (notifications, geolocation, a camera) at once, but
// headed Chrome shows a bubble, sends no CDP event, and leaves the
// request's promise pending until someone at the screen answers: an eval
// that awaits it hangs, and nothing over CDP settles a pending one. Local
// network access (a public page's request to this machine, or to the local
// network) is the same: a bubble and a pending fetch headed, a fetch that
// fails at once headless. A policy set beforehand answers at once in both
// modes, so the Browser sets one as it starts: Browser.setPermission
// "denied" with no origin (every origin of the default browser context) for
// each of tabstate.PromptingPermissions, then "granted" for each name and
// origin of Config.Permissions. An origin's setting outlives a later
// browser-wide one (measured: granted, then denied with no origin, still
// answers "granted"), so a second watcher of the browser with no grants
// takes none away. Chrome keeps these settings while the DevTools
// connection that set them is open.
//
// A browser that does not know a denied name (an older Chrome: -32602
// "Invalid PermissionDescriptor name") cannot ask for it either, so the
// name is skipped, and the Logger told; any other refusal fails Start, as
// does a refused grant, which the program asked for.

// permissionParams is Browser.setPermission's.
type permissionParams struct {
	Permission struct {
		Name string `json:"name"`
	} `json:"permission"`
	Setting          string `json:"setting"`
	Origin           string `json:"origin,omitempty"`
	BrowserContextID string `json:"browserContextId,omitempty"`
}

// permissionPolicy denies every prompting permission in the browser
// context bc ("" is the default one), then grants Config.Permissions, all
// at once: an origin's setting outlives a context-wide one whichever came
// first. Start calls it after the grants were checked (contexts.go).
func (b *Browser) permissionPolicy(ctx context.Context, s *starter, bc string) error {
	names := tabstate.PromptingPermissions()
	calls := make([]func() error, 0, len(names))
	for _, name := range names {
		calls = append(calls, func() error {
			return s.call(ctx, b.browser, "Browser.setPermission "+name+inContext(bc), "Browser.setPermission", permission(name, "denied", "", bc), nil)
		})
	}
	type grant struct{ name, origin string }
	var grants []grant
	for _, g := range b.cfg.Permissions {
		for _, name := range g.Permissions {
			grants = append(grants, grant{name, g.Origin})
			calls = append(calls, func() error {
				return s.call(ctx, b.browser, "Browser.setPermission "+name+" for "+g.Origin+inContext(bc), "Browser.setPermission", permission(name, "granted", g.Origin, bc), nil)
			})
		}
	}
	errs := together(calls...)
	for _, err := range errs {
		if te, ok := startTimeout(err); ok {
			return b.cfg.Advice.Words(te) // the first call unanswered names the timeout
		}
	}
	for i, err := range errs[len(names):] {
		if err != nil {
			return fmt.Errorf("grant permission %s to %s: %w", grants[i].name, grants[i].origin, err)
		}
	}
	for i, err := range errs[:len(names)] {
		if err == nil {
			continue
		}
		if f := b.d.Classify(err); f.Kind == Protocol && strings.HasPrefix(f.Message, "Invalid PermissionDescriptor name") {
			if log := b.cfg.Logger; log != nil {
				log.Info("tabguard: the browser knows no such permission, so it never asks for it", "permission", names[i])
			}
			continue
		}
		return fmt.Errorf("deny permission %s: %w", names[i], err)
	}
	return nil
}

// permission is Browser.setPermission's params.
func permission(name, setting, origin, bc string) permissionParams {
	p := permissionParams{Setting: setting, Origin: origin, BrowserContextID: bc}
	p.Permission.Name = name
	return p
}

// Local network access denied. Headless Chrome (or a denial set by the
// policy) fails the request at once: the script sees "TypeError: Failed to
// fetch", and the tab's session gets Network.loadingFailed with
// corsErrorStatus.corsError LocalNetworkAccessPermissionDenied, which names
// the request but not its URL. The URL comes with the CORS issue of the
// Audits domain, which Chrome also replays for the page's issues so far
// when the domain is enabled. So a call whose script ended with an
// exception during which a denial came is answered ErrLocalNetworkDenied;
// the first time on a tab, Audits is enabled to learn the URL (and left on:
// the session may be the program's, which may use it too). A call that
// succeeded stays a success and costs nothing more; one that threw costs
// nothing more unless a denial came, but for a network error's exception
// on a driver whose events can trail its replies (Syncer), which is synced
// first.

// keptDenials bounds how many denied requests a tab remembers.
const keptDenials = 8

// The engine's patience (Config.patience, 1 s by default, or more as the
// link shows) bounds the wait for the CORS issue that names a denied
// request's URL; measured, Audits.enable answers in about 2 ms with the
// issue before its reply.

// localNetwork is what a tab's events told of its denied local network
// requests. It is guarded by the Tab's mu.
type localNetwork struct {
	n       uint64 // denials so far
	denials []denial
	audits  bool // Audits was enabled to learn URLs
}

// denial is one request denied local network access.
type denial struct {
	n              uint64
	requestID, url string
}

// deniedRequest records a denied request. t.mu must be held.
func (t *Tab) deniedRequest(id string) {
	l := &t.lna
	l.n++
	l.denials = append(l.denials, denial{n: l.n, requestID: id})
	if len(l.denials) > keptDenials {
		l.denials = l.denials[1:]
	}
}

// corsIssue records the URL of a denied request. t.mu must be held.
func (t *Tab) corsIssue(e tabstate.CORSIssue) {
	if e.CORSError != tabstate.CORSLocalNetworkDenied {
		return
	}
	for i := range t.lna.denials {
		if d := &t.lna.denials[i]; d.requestID == e.RequestID {
			d.url = e.URL
		}
	}
}

// latestDenial is the last request denied after the n-th denial, if any.
// t.mu must be held.
func (t *Tab) latestDenial(n uint64) (denial, bool) {
	if t.lna.n == n || len(t.lna.denials) == 0 {
		return denial{}, false
	}
	return t.lna.denials[len(t.lna.denials)-1], true
}

// networkException reports whether err is a script's exception for a
// network error, which a denial may explain: fetch's "Failed to fetch"
// (and a dynamic import's), a synchronous XMLHttpRequest's NetworkError.
func (t *Tab) networkException(err error) bool {
	f := t.b.d.Classify(err)
	return f.Kind == Exception && (strings.Contains(f.Message, "Failed to fetch") || strings.Contains(f.Message, "NetworkError"))
}

// localNetworkDenied is the answer of call, which ended with err: an
// ErrLocalNetworkDenied when its script ended with an exception and a
// request was denied local network access while it ran, or nil. The
// denial's event may trail the reply (Syncer): the driver is synced only
// for an exception that a network error raised.
func (t *Tab) localNetworkDenied(ctx context.Context, call *inflight, err error) error {
	if t.b.d.Classify(err).Kind != Exception {
		return nil
	}
	t.mu.Lock()
	d, ok := t.latestDenial(call.lnaSeq)
	t.mu.Unlock()
	if !ok && t.b.syncer != nil && t.networkException(err) && t.b.sync(ctx) == nil {
		t.mu.Lock()
		d, ok = t.latestDenial(call.lnaSeq)
		t.mu.Unlock()
	}
	if !ok {
		return nil
	}
	if d.url == "" {
		d.url = t.deniedURL(ctx, d.requestID)
	}
	be := tabstate.LocalNetworkDenied(d.url)
	t.logf("tabguard: local network request denied", be)
	return t.b.cfg.Advice.Refusal(be)
}

// deniedURL learns the URL of the denied request id from its CORS issue,
// enabling the Audits domain the first time, within the engine's patience; empty
// when none comes.
func (t *Tab) deniedURL(ctx context.Context, id string) string {
	t.mu.Lock()
	enable := !t.lna.audits
	t.lna.audits = true
	t.mu.Unlock()
	grace := t.b.patience()
	ctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	if enable {
		if err := t.s.Call(ctx, "Audits.enable", nil, nil); err != nil {
			return ""
		}
	}
	var url string
	t.await(ctx, grace, func() bool {
		for _, d := range t.lna.denials {
			if d.requestID == id {
				url = d.url
			}
		}
		return url != ""
	})
	return url
}
