package chromedpguard_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestPermissions runs in a browser of its own, which takes the page
// server of faultrows.LocalNetworkServers for a public site: the policy is
// the browser's, and its grants outlive the watcher that set them. Its
// subtests run in order: denials first, then grants.
func TestPermissions(t *testing.T) {
	t.Parallel()
	pub, target := faultrows.LocalNetworkServers(t)
	srv, other := serve(t), serve(t)
	browser := launchPublic(t, pub)
	fetch := faultrows.FetchJS(target.URL + faultrows.LocalNetworkPath)

	t.Run("denied by default", func(t *testing.T) {
		tab := newTab(t, browser)
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(srv.URL)))
		// Headless Chrome answers "prompt" for local-network when nobody
		// set a policy (measured).
		before, err := chromedp.Run(tab, chromedp.Evaluate[string](`navigator.permissions.query({name: "local-network"}).then(s => s.state)`, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
		w := watch(t, tab, nil)
		assert.Equal(t, "denied", evalString(t, w, faultrows.NotificationJS))
		for _, name := range []string{"notifications", "geolocation", "camera", "local-network", "loopback-network"} {
			assert.Equal(t, "denied", evalString(t, w, faultrows.PermissionStateJS, name), name)
		}
		assert.Equal(t, "prompt", before, "local-network before the policy")
	})

	t.Run("a local network request is denied", func(t *testing.T) {
		tab := newTab(t, browser)
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(pub.URL)))
		w := watch(t, tab, nil)
		_, err := w.Eval(within(t, 10*time.Second), fetch)
		var be *chromedpguard.BlockedError
		require.ErrorAs(t, err, &be)
		assert.ErrorIs(t, err, chromedpguard.ErrLocalNetworkDenied)
		u, perr := url.Parse(target.URL)
		require.NoError(t, perr)
		assert.Equal(t, "loopback-network for "+u.Host, be.Detail)
		assert.Contains(t, err.Error(), "grant loopback-network to the page's origin in Options.Permissions")

		res, err := w.Eval(within(t, 10*time.Second), `() => 1`)
		require.NoError(t, err, "the next eval answers")
		assert.Equal(t, "1", string(res.Value))

		dctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		err = w.Do(dctx, func(ctx context.Context) error {
			_, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(`+quote(target.URL+faultrows.LocalNetworkPath)+`).then(r => r.text())`, chromedp.EvalAwaitPromise))
			return err
		})
		assert.ErrorIs(t, err, chromedpguard.ErrLocalNetworkDenied, "Do")
		_, err = w.Eval(within(t, 10*time.Second), `() => { throw new Error("own") }`)
		assert.NotErrorIs(t, err, chromedpguard.ErrLocalNetworkDenied, "an exception with no denial passes through")
	})

	t.Run("granted to one origin", func(t *testing.T) {
		bw, err := chromedpguard.WatchBrowser(browser, &chromedpguard.Options{Permissions: []chromedpguard.PermissionGrant{
			{Origin: srv.URL, Permissions: []string{"notifications", "geolocation"}},
			{Origin: pub.URL, Permissions: []string{"loopback-network"}},
		}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = bw.Close() })
		for _, c := range []struct{ url, want string }{{srv.URL, "granted"}, {other.URL, "denied"}} {
			tab := newTab(t, browser)
			require.NoError(t, chromedp.Do(tab, chromedp.Navigate(c.url)))
			w, err := bw.Watch(tab)
			require.NoError(t, err)
			assert.Equal(t, c.want, evalString(t, w, faultrows.NotificationJS), c.url)
			assert.Equal(t, c.want, evalString(t, w, faultrows.PermissionStateJS, "geolocation"), c.url)
		}
		tab := newTab(t, browser)
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(pub.URL)))
		w, err := bw.Watch(tab)
		require.NoError(t, err)
		assert.Equal(t, faultrows.LocalNetworkBody, evalString(t, w, fetch))
	})

	t.Run("print is replaced", func(t *testing.T) {
		before := newTab(t, browser) // watched before its load
		wb := watch(t, before, nil)
		require.NoError(t, wb.Navigate(within(t, 10*time.Second), srv.URL))
		after := newTab(t, browser) // watched after its load
		require.NoError(t, chromedp.Do(after, chromedp.Navigate(srv.URL)))
		native, err := chromedp.Run(after, chromedp.Evaluate[string](`print(), String(print)`))
		require.NoError(t, err)
		wa := watch(t, after, nil)
		for name, w := range map[string]*chromedpguard.Watcher{"before": wb, "after": wa} {
			assert.Equal(t, faultrows.ReplacedPrint, evalString(t, w, faultrows.PrintJS), name)
		}
		assert.Contains(t, native, "[native code]")
	})
}

// TestPermissionsBadInput: a grant that cannot be set fails Watch and
// WatchBrowser with ErrInvalidArgument.
func TestPermissionsBadInput(t *testing.T) {
	t.Parallel()
	tab := newTab(t, sharedBrowser)
	for name, grant := range map[string]chromedpguard.PermissionGrant{
		"empty origin": {Permissions: []string{"geolocation"}},
		"no scheme":    {Origin: "example.com", Permissions: []string{"geolocation"}},
		"a path":       {Origin: "https://example.com/app", Permissions: []string{"geolocation"}},
		"unknown name": {Origin: "https://example.com", Permissions: []string{"teleport"}},
		"no name":      {Origin: "https://example.com"},
	} {
		t.Run(name, func(t *testing.T) {
			opts := &chromedpguard.Options{Permissions: []chromedpguard.PermissionGrant{grant}}
			_, err := chromedpguard.Watch(tab, opts)
			assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
			_, err = chromedpguard.WatchBrowser(tab, opts)
			assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
		})
	}
}

// launchPublic launches a browser of the test's own that takes the server
// pub for a public site, and ends it when t ends.
func launchPublic(t *testing.T, pub *httptest.Server) context.Context {
	t.Helper()
	name, value := faultrows.PublicFlag(pub)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-site-isolation-trials", true), chromedp.Flag(name, value))
	if bin := os.Getenv("TABGUARD_BROWSER"); bin != "" {
		opts = append(opts, chromedp.ExecPath(bin))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx), "start Chromium")
	return ctx
}

// evalString evaluates js with args through w, for its string result.
func evalString(t *testing.T, w *chromedpguard.Watcher, js string, args ...any) string {
	t.Helper()
	res, err := w.Eval(within(t, 10*time.Second), js, args...)
	require.NoError(t, err)
	var s string
	require.NoError(t, json.Unmarshal(res.Value, &s), "result %s", res.Value)
	return s
}

// quote is s as a JavaScript string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
