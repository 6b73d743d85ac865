package engine

import (
	"context"
	"errors"

	"github.com/tabguard/tabguard/tabstate"
)

// Sign-in. Measured on Chromium 156: without the Fetch domain, headless
// Chrome cancels a server's request for credentials at once
// (net::ERR_INVALID_AUTH_CREDENTIALS, Chrome's error page), which the
// tab's state already tells (tabstate.ErrSignInRequired); headed Chrome
// answers the same and draws its own "Sign in" prompt over the error
// page, which blocks nothing. Giving credentials takes Fetch with
// handleAuthRequests: each challenge then waits for Fetch.continueWithAuth,
// and one left unanswered holds Page.navigate and every renderer-bound call
// of the tab. So the engine enables Fetch only when Config.Credentials is
// set, and only for documents (resourceType Document: Chrome refuses
// handleAuthRequests with no pattern): each paused document request is
// continued, and each challenge answered from an engine goroutine, never
// from event intake. A challenge for a subresource reaches no callback:
// Chrome cancels it, as without Fetch.
//
// The answers: the callback's credentials (ProvideCredentials); nothing,
// when it gives none or fails (CancelAuth); and when the server asks again
// for a request it was given credentials for, they were refused
// (CancelAuth). A cancelled challenge commits the server's own 401 page as
// the document, so the navigation that met it commits: Navigate and
// Reload then return the reason (ErrSignInRequired, ErrCredentialsRefused),
// which the engine records before it answers Chrome, and so before the
// navigation's reply.

// signInKept bounds the requests a tab remembers giving credentials to.
const signInKept = 16

// fetchPattern is Fetch.RequestPattern.
type fetchPattern struct {
	URLPattern   string `json:"urlPattern"`
	ResourceType string `json:"resourceType,omitempty"`
}

// fetchEnableParams is Fetch.enable's.
type fetchEnableParams struct {
	Patterns           []fetchPattern `json:"patterns"`
	HandleAuthRequests bool           `json:"handleAuthRequests"`
}

// fetchRequestParams is Fetch.continueRequest's.
type fetchRequestParams struct {
	RequestID string `json:"requestId"`
}

// authResponse is Fetch.AuthChallengeResponse.
type authResponse struct {
	Response string `json:"response"`
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
}

// continueWithAuthParams is Fetch.continueWithAuth's.
type continueWithAuthParams struct {
	RequestID string       `json:"requestId"`
	Response  authResponse `json:"authChallengeResponse"`
}

// signIns is what a tab remembers of its sign-ins, under its mu.
type signIns struct {
	given   []string // Fetch request IDs given credentials, newest last
	refused uint64   // main-frame sign-ins that ended refused
	last    *tabstate.BlockedError
}

// enableSignIn has Chrome hold the tab's document requests and their
// challenges for the engine, when the program gives credentials.
func (t *Tab) enableSignIn(ctx context.Context, s *starter) error {
	if t.b.cfg.Credentials == nil {
		return nil
	}
	return s.call(ctx, t.s, "Fetch.enable", "Fetch.enable", fetchEnableParams{
		Patterns:           []fetchPattern{{URLPattern: "*", ResourceType: "Document"}},
		HandleAuthRequests: true,
	}, nil)
}

// fetchEvent takes in a Fetch event, t.mu held: it answers it from a
// goroutine of its own.
func (t *Tab) fetchEvent(ev tabstate.Event) {
	if t.b.cfg.Credentials == nil {
		return // another client of the tab enabled Fetch: its requests are its own
	}
	switch e := ev.(type) {
	case tabstate.RequestPaused:
		t.answer(func(ctx context.Context) error {
			return t.s.Call(ctx, "Fetch.continueRequest", fetchRequestParams{RequestID: e.RequestID}, nil)
		})
	case tabstate.AuthRequired:
		if t.signedIn(e.RequestID) {
			t.signInRefused(e, true)
			t.answer(t.cancelAuth(e.RequestID))
			return
		}
		t.answer(func(ctx context.Context) error { return t.signIn(ctx, e) })
	}
}

// answer runs fn in a goroutine of the tab, bounded by the eval timeout.
// An answer that fails leaves the request held; the navigation waiting
// for it then times out, and says it was loading.
func (t *Tab) answer(fn func(ctx context.Context) error) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(t.life, t.timeout)
		defer cancel()
		if err := fn(ctx); err != nil && t.life.Err() == nil {
			t.logf("tabguard: answer a held request", err)
		}
	}()
}

// signIn asks the program for credentials for challenge e and answers it.
func (t *Tab) signIn(ctx context.Context, e tabstate.AuthRequired) error {
	s := tabstate.SignIn{URL: e.URL, Origin: e.Origin, Realm: e.Realm, Scheme: e.Scheme, Proxy: e.Source == "Proxy", FrameID: e.FrameID}
	c, err := t.b.cfg.Credentials(ctx, s)
	if err != nil || c == (tabstate.Credentials{}) {
		if err != nil && !errors.Is(err, context.Canceled) {
			t.logf("tabguard: credentials callback failed", err)
		}
		t.mu.Lock()
		t.signInRefused(e, false)
		t.mu.Unlock()
		return t.cancelAuth(e.RequestID)(ctx)
	}
	t.mu.Lock()
	t.sign.given = append(t.sign.given, e.RequestID)
	if len(t.sign.given) > signInKept {
		t.sign.given = t.sign.given[1:]
	}
	t.mu.Unlock()
	return t.s.Call(ctx, "Fetch.continueWithAuth", continueWithAuthParams{RequestID: e.RequestID,
		Response: authResponse{Response: "ProvideCredentials", Username: c.Username, Password: c.Password}}, nil)
}

// cancelAuth answers a challenge with none: the server's own answer
// commits.
func (t *Tab) cancelAuth(requestID string) func(context.Context) error {
	return func(ctx context.Context) error {
		return t.s.Call(ctx, "Fetch.continueWithAuth", continueWithAuthParams{RequestID: requestID,
			Response: authResponse{Response: "CancelAuth"}}, nil)
	}
}

// signedIn reports whether the request was given credentials, and forgets
// it. t.mu must be held.
func (t *Tab) signedIn(requestID string) bool {
	for i, id := range t.sign.given {
		if id == requestID {
			t.sign.given = append(t.sign.given[:i], t.sign.given[i+1:]...)
			return true
		}
	}
	return false
}

// signInRefused records that challenge e ends refused, for the navigation
// of the tab's main frame that met it. t.mu must be held.
func (t *Tab) signInRefused(e tabstate.AuthRequired, given bool) {
	s := tabstate.SignIn{URL: e.URL, Origin: e.Origin, Realm: e.Realm, Scheme: e.Scheme, Proxy: e.Source == "Proxy", FrameID: e.FrameID}
	be := tabstate.SignInRefused(e.URL, s, given)
	if l := t.b.cfg.Logger; l != nil {
		l.Warn("tabguard: sign-in refused", "target", t.id, "frame", e.FrameID, "err", be)
	}
	if e.FrameID != t.id || e.ResourceType != "Document" {
		return
	}
	t.sign.refused++
	t.sign.last = be
}

// signInsRefused is how many of the tab's navigations ended at a refused
// sign-in so far.
func (t *Tab) signInsRefused() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sign.refused
}

// signInSince is the refusal of a sign-in that ended a navigation after
// the n-th, if any: the reason a load that committed returns.
func (t *Tab) signInSince(n uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sign.refused == n || t.sign.last == nil {
		return nil
	}
	be := *t.sign.last
	return t.b.cfg.Advice.Refusal(&be)
}
