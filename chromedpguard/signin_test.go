package chromedpguard_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// titleOnceParsed reads the title once the document is parsed: Navigate
// returns as soon as it commits.
const titleOnceParsed = `() => new Promise(r => document.readyState === "loading" ?
	addEventListener("DOMContentLoaded", () => r(document.title)) : r(document.title))`

// TestSignInCredentials holds Options.Credentials on a real browser, as
// the rod backend's test of the same name: each outcome is Navigate's
// reason at once, the committed document answers, and the callback is
// asked once per challenge. Each case runs headless and headed, where
// Chrome would draw its "Sign in" prompt for a challenge left to it.
func TestSignInCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		give  chromedpguard.Credentials
		err   error
		want  error
		title string
	}{
		{name: "given", give: chromedpguard.Credentials{Username: faultrows.SignInUser, Password: faultrows.SignInPassword}, title: "signed in"},
		{name: "refused by the server", give: chromedpguard.Credentials{Username: faultrows.SignInUser, Password: "not-the-pw"},
			want: chromedpguard.ErrCredentialsRefused, title: "sign in"},
		{name: "none given", want: chromedpguard.ErrSignInRequired, title: "sign in"},
		{name: "callback failed", err: errors.New("vault sealed"), want: chromedpguard.ErrSignInRequired, title: "sign in"},
	}
	for _, mode := range []struct {
		name   string
		headed bool
	}{{"headless", false}, {"headed", true}} {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				if mode.headed {
					// Headed Chrome takes the same calls: what it draws
					// for a challenge left to it is held on rod's headed
					// rows of the same cases.
					faultrows.EngineRow(t)
				}
				t.Parallel()
				var browser context.Context // the shared headless browser
				if mode.headed {
					browser = sharedHeaded(t).ctx
				}
				var asked atomic.Int32
				// A server of its own (newFixture's): Chrome keeps the
				// credentials a server took for its origin, for every tab.
				f := newFixture(t, browser, "/", &chromedpguard.Options{EvalTimeout: 10 * time.Second,
					Credentials: func(ctx context.Context, s chromedpguard.SignIn) (chromedpguard.Credentials, error) {
						asked.Add(1)
						assert.Equal(t, "tabguard", s.Realm)
						return tt.give, tt.err
					}})
				if mode.headed {
					requireHeaded(t, f.tab)
				}
				err := f.w.Navigate(within(t, 10*time.Second), f.srv.URL+faultrows.SignInPath)
				if tt.want == nil {
					require.NoError(t, err)
				} else {
					require.ErrorIs(t, err, tt.want)
					assert.Contains(t, err.Error(), f.srv.URL+` (realm "tabguard")`)
					assert.NotContains(t, err.Error(), "not-the-pw")
				}
				assert.Equal(t, int32(1), asked.Load())
				res, err := f.w.Eval(within(t, 10*time.Second), titleOnceParsed)
				require.NoError(t, err, "the document that committed answers")
				assert.Equal(t, strconv.Quote(tt.title), string(res.Value))

				require.NoError(t, f.w.Navigate(within(t, 10*time.Second), f.srv.URL+"/"))
				res, err = f.w.Eval(within(t, 10*time.Second), `() => location.href`)
				require.NoError(t, err)
				assert.Equal(t, strconv.Quote(f.srv.URL+"/"), string(res.Value))
			})
		}
	}
}
