package tabguard_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// titleOnceParsed reads the title once the document is parsed: Navigate
// returns as soon as it commits.
const titleOnceParsed = `() => new Promise(r => document.readyState === "loading" ?
	addEventListener("DOMContentLoaded", () => r(document.title)) : r(document.title))`

// TestSignInCredentials holds Options.Credentials on a real browser: the
// right credentials load the page; credentials the server refuses, none,
// and a failed callback each answer Navigate with their own reason at
// once, while the server's 401 page commits and answers the next Eval; the
// callback is asked once per challenge, with the origin and realm; and no
// reason names the password. Each case runs headless and headed, where
// Chrome would draw its "Sign in" prompt for a challenge left to it: the
// answers are the same.
func TestSignInCredentials(t *testing.T) {
	t.Parallel()
	tests := []signInCase{
		{name: "given", give: tabguard.Credentials{Username: faultrows.SignInUser, Password: faultrows.SignInPassword},
			title: "signed in", asked: 1},
		{name: "refused by the server", give: tabguard.Credentials{Username: faultrows.SignInUser, Password: "not-the-pw"},
			want: tabguard.ErrCredentialsRefused, title: "sign in", asked: 1},
		{name: "none given", want: tabguard.ErrSignInRequired, title: "sign in", asked: 1},
		{name: "callback failed", err: errors.New("vault sealed"), want: tabguard.ErrSignInRequired, title: "sign in", asked: 1},
	}
	browsers := []struct {
		name   string
		headed bool
		get    func(testing.TB) *testbrowser.Browser
	}{{"headless", false, testbrowser.Shared}, {"headed", true, testbrowser.SharedHeaded}}
	for _, b := range browsers {
		for _, tt := range tests {
			t.Run(b.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				page := testbrowser.NewPage(t, b.get(t))
				if b.headed {
					requireHeaded(t, page)
				}
				tt.run(t, page)
			})
		}
	}
}

// signInCase is a case of TestSignInCredentials: what the callback gives
// or fails with, the reason Navigate answers (nil: none), the title of the
// document that commits, and how often the callback is asked.
type signInCase struct {
	name  string
	give  tabguard.Credentials
	err   error
	want  error
	title string
	asked int32
}

// run holds the case on page, a blank tab.
func (tt signInCase) run(t *testing.T, page *rod.Page) {
	// A server of its own: Chrome keeps the credentials a server took for
	// its origin and realm, and sends them unasked on every later load of
	// it, in every tab of the browser.
	srv := serve(t)
	signIn := srv.URL + faultrows.SignInPath
	var asked atomic.Int32
	require.NoError(t, navigate(t, page, srv.URL))
	require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
	w := watch(t, page, &tabguard.Options{EvalTimeout: 10 * time.Second,
		Credentials: func(ctx context.Context, s tabguard.SignIn) (tabguard.Credentials, error) {
			asked.Add(1)
			assert.Equal(t, srv.URL, s.Origin)
			assert.Equal(t, "tabguard", s.Realm)
			assert.Equal(t, "basic", s.Scheme)
			assert.False(t, s.Proxy)
			return tt.give, tt.err
		}})
	err := w.Navigate(testbrowser.Context(t, 10*time.Second), signIn)
	if tt.want == nil {
		require.NoError(t, err)
	} else {
		require.ErrorIs(t, err, tt.want)
		var be *tabguard.BlockedError
		require.ErrorAs(t, err, &be)
		assert.Contains(t, err.Error(), srv.URL+` (realm "tabguard")`)
		assert.NotContains(t, err.Error(), "not-the-pw")
	}
	assert.Equal(t, tt.asked, asked.Load())
	res, err := w.Eval(testbrowser.Context(t, 10*time.Second), titleOnceParsed)
	require.NoError(t, err, "the document that committed answers")
	assert.Equal(t, tt.title, res.Value.Str())

	// Loads with no challenge go through the held document requests.
	require.NoError(t, w.Navigate(testbrowser.Context(t, 10*time.Second), srv.URL))
	res, err = w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/", res.Value.Str())
}
