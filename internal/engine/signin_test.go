package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// signInServer plays Chrome and a server that asks for credentials: a
// navigation's document request is held (Fetch.requestPaused), then
// challenged (Fetch.authRequired); credentials other than want are
// challenged again, as a server that refuses them; CancelAuth commits the
// server's 401 page; the right credentials commit the page. The navigation
// replies once the page or the 401 page commits.
type signInServer struct {
	f    *enginetest.Fake
	want tabstate.Credentials

	mu      sync.Mutex
	answers []string // the challenge answers, in order
	done    chan struct{}
}

const signInURL = "http://127.0.0.1:1/signin"

func newSignInServer(f *enginetest.Fake, want tabstate.Credentials) *signInServer {
	s := &signInServer{f: f, want: want}
	challenge := enginetest.Page(sess, tabstate.AuthRequired{RequestID: "I1", FrameID: target, URL: signInURL, ResourceType: "Document",
		Origin: "http://127.0.0.1:1", Scheme: "basic", Realm: "staff", Source: "Server"})
	f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
		s.mu.Lock()
		s.done = make(chan struct{})
		done := s.done
		s.mu.Unlock()
		f.Push(enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: "L1", URL: signInURL}),
			enginetest.Page(sess, tabstate.RequestPaused{RequestID: "I1", NetworkID: "L1", FrameID: target, URL: signInURL, ResourceType: "Document"}))
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			return enginetest.Reply{Hang: true}
		}
		return enginetest.Reply{Result: map[string]any{"frameId": target, "loaderId": "L1"},
			Events: []enginetest.Event{enginetest.Page(sess, tabstate.FrameNavigated{FrameID: target, LoaderID: "L1", URL: signInURL})}}
	})
	f.Handle("Fetch.continueRequest", func(string, json.RawMessage) enginetest.Reply {
		return enginetest.Reply{Result: struct{}{}, Events: []enginetest.Event{challenge}}
	})
	f.Handle("Fetch.continueWithAuth", func(_ string, params json.RawMessage) enginetest.Reply {
		var p struct {
			AuthChallengeResponse struct{ Response, Username, Password string }
		}
		_ = json.Unmarshal(params, &p)
		r := p.AuthChallengeResponse
		s.mu.Lock()
		s.answers = append(s.answers, r.Response)
		done := s.done
		s.mu.Unlock()
		if r.Response == "ProvideCredentials" && (tabstate.Credentials{Username: r.Username, Password: r.Password}) != s.want {
			return enginetest.Reply{Result: struct{}{}, Events: []enginetest.Event{challenge}}
		}
		close(done)
		return enginetest.Reply{Result: struct{}{}}
	})
	return s
}

func (s *signInServer) answered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.answers...)
}

// TestSignIn holds the sign-in rules: each challenge of a tab's document
// is answered from the credentials callback, once per challenge; the
// server's refusal of them and the callback's refusal are Navigate's
// reasons, told apart, while the server's 401 page commits; the next
// navigation without a challenge answers nil; and nothing is sent from
// event intake.
func TestSignIn(t *testing.T) {
	right := tabstate.Credentials{Username: "u", Password: "p"}
	tests := []struct {
		name    string
		give    tabstate.Credentials
		err     error
		want    error
		answers []string
	}{
		{name: "given", give: right, answers: []string{"ProvideCredentials"}},
		{name: "refused by the server", give: tabstate.Credentials{Username: "u", Password: "wrong"},
			want: tabstate.ErrCredentialsRefused, answers: []string{"ProvideCredentials", "CancelAuth"}},
		{name: "none given", want: tabstate.ErrSignInRequired, answers: []string{"CancelAuth"}},
		{name: "callback failed", err: errors.New("vault sealed"), want: tabstate.ErrSignInRequired, answers: []string{"CancelAuth"}},
	}
	for _, order := range orders {
		for _, tt := range tests {
			t.Run(order.String()+"/"+tt.name, func(t *testing.T) {
				var (
					mu   sync.Mutex
					seen []tabstate.SignIn
				)
				cfg := engine.Config{EvalTimeout: 5 * time.Second, Credentials: func(ctx context.Context, s tabstate.SignIn) (tabstate.Credentials, error) {
					mu.Lock()
					defer mu.Unlock()
					seen = append(seen, s)
					return tt.give, tt.err
				}}
				fx := setup(t, order, cfg)
				srv := newSignInServer(fx.f, right)
				err := fx.tab.Navigate(deadline(t), signInURL)
				if tt.want == nil {
					require.NoError(t, err)
				} else {
					require.ErrorIs(t, err, tt.want)
					assert.ErrorIs(t, err, tabstate.ErrNoDocument)
					assert.Contains(t, err.Error(), `http://127.0.0.1:1 (realm "staff")`)
					assert.NotContains(t, err.Error(), "wrong")
				}
				assert.Equal(t, tt.answers, srv.answered())
				mu.Lock()
				want := []tabstate.SignIn{{URL: signInURL, Origin: "http://127.0.0.1:1", Realm: "staff", Scheme: "basic", FrameID: target}}
				if d := cmp.Diff(want, seen); d != "" {
					t.Errorf("callback saw (-want +got):\n%s", d)
				}
				mu.Unlock()
				assert.Nil(t, fx.tab.Blocked(deadline(t)), "the 401 page answers")

				// A navigation that meets no challenge keeps no old reason.
				fx.f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
					return enginetest.Reply{Result: map[string]any{"frameId": target, "loaderId": "L2"}, Events: commit("L2", pageURL)}
				})
				require.NoError(t, fx.tab.Navigate(deadline(t), pageURL))
				for _, c := range fx.f.Calls() {
					assert.False(t, c.FromIntake, "%s sent from event intake", c.Method)
				}
				assert.Equal(t, 1, fx.f.Count("Fetch.enable"))
			})
		}
	}
}

// TestSignInOff holds that without a credentials callback the engine
// leaves the Fetch domain alone: it enables nothing, and answers no held
// request of another client's.
func TestSignInOff(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 5 * time.Second})
	fx.f.Push(enginetest.Page(sess, tabstate.RequestPaused{RequestID: "I9", FrameID: target, URL: pageURL, ResourceType: "Document"}))
	require.Nil(t, fx.tab.Blocked(deadline(t)))
	assert.Zero(t, fx.f.Count("Fetch.enable"))
	assert.Zero(t, fx.f.Count("Fetch.continueRequest"))
}
