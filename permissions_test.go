package tabguard_test

import (
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestPermissions runs in a browser of its own, which takes the page
// server of faultrows.LocalNetworkServers for a public site: the policy is
// the browser's, and its grants outlive the watcher that set them. Its
// subtests run in order: denials first, then grants.
func TestPermissions(t *testing.T) {
	t.Parallel()
	pub, target := faultrows.LocalNetworkServers(t)
	srv, other := serve(t), serve(t)
	b := launchPublic(t, pub)
	fetch := faultrows.FetchJS(target.URL + faultrows.LocalNetworkPath)

	t.Run("denied by default", func(t *testing.T) {
		page := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, page, srv.URL))
		// Headless Chrome answers "prompt" for a camera with no device, and
		// for local-network, when nobody set a policy (measured).
		before := evalString(t, page, faultrows.PermissionStateJS, "local-network")
		w := watch(t, page, nil)
		assert.Equal(t, "denied", watcherString(t, w, faultrows.NotificationJS))
		for _, name := range []string{"notifications", "geolocation", "camera", "local-network", "loopback-network"} {
			assert.Equal(t, "denied", watcherString(t, w, faultrows.PermissionStateJS, name), name)
		}
		assert.Equal(t, "prompt", before, "local-network before the policy")
	})

	t.Run("a local network request is denied", func(t *testing.T) {
		page := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, page, pub.URL))
		w := watch(t, page, nil)
		_, err := w.Eval(testbrowser.Context(t, 10*time.Second), fetch)
		var be *tabguard.BlockedError
		require.ErrorAs(t, err, &be)
		assert.ErrorIs(t, err, tabguard.ErrLocalNetworkDenied)
		host := hostOf(t, target.URL)
		assert.Equal(t, "loopback-network for "+host, be.Detail)
		assert.Contains(t, err.Error(), "local network request denied: loopback-network for "+host)
		assert.Contains(t, err.Error(), "grant loopback-network to the page's origin in Options.Permissions")

		res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
		require.NoError(t, err, "the next eval answers")
		assert.Equal(t, 1, res.Value.Int())

		err = w.Do(testbrowser.Context(t, 10*time.Second), func(p *rod.Page) error {
			_, err := p.Eval(fetch)
			return err
		})
		assert.ErrorIs(t, err, tabguard.ErrLocalNetworkDenied, "Do")
		_, err = w.Eval(testbrowser.Context(t, 10*time.Second), `() => { throw new Error("own") }`)
		assert.NotErrorIs(t, err, tabguard.ErrLocalNetworkDenied, "an exception with no denial passes through")
	})

	t.Run("granted to one origin", func(t *testing.T) {
		bw, err := tabguard.WatchBrowser(b.Browser, &tabguard.Options{Permissions: []tabguard.PermissionGrant{
			{Origin: srv.URL, Permissions: []string{"notifications", "geolocation"}},
			{Origin: pub.URL, Permissions: []string{"loopback-network"}},
		}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = bw.Close() })
		granted, denied, public := testbrowser.NewPage(t, b), testbrowser.NewPage(t, b), testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, granted, srv.URL))
		require.NoError(t, navigate(t, denied, other.URL))
		require.NoError(t, navigate(t, public, pub.URL))
		for page, want := range map[*rod.Page]string{granted: "granted", denied: "denied"} {
			w, err := bw.Watch(page)
			require.NoError(t, err)
			assert.Equal(t, want, watcherString(t, w, faultrows.NotificationJS), page.MustInfo().URL)
			assert.Equal(t, want, watcherString(t, w, faultrows.PermissionStateJS, "geolocation"), page.MustInfo().URL)
		}
		w, err := bw.Watch(public)
		require.NoError(t, err)
		assert.Equal(t, faultrows.LocalNetworkBody, watcherString(t, w, fetch))
	})

	t.Run("print is replaced", func(t *testing.T) {
		before := testbrowser.NewPage(t, b) // watched before its load
		wb := watch(t, before, nil)
		require.NoError(t, wb.Navigate(testbrowser.Context(t, 10*time.Second), srv.URL))
		after := testbrowser.NewPage(t, b) // watched after its load
		require.NoError(t, navigate(t, after, srv.URL))
		require.NoError(t, after.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
		native := evalString(t, after, faultrows.PrintJS)
		wa := watch(t, after, nil)
		// Watched right after rod's Navigate, which may return before the
		// document commits, and asked at once: Watch then does not wait
		// for the renderer, and the call waits for the print call.
		during := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, during, srv.URL))
		wd := watch(t, during, nil)
		assert.Equal(t, faultrows.ReplacedPrint, watcherString(t, wd, faultrows.PrintJS), "during")
		for name, w := range map[string]*tabguard.Watcher{"before": wb, "after": wa} {
			assert.Equal(t, faultrows.ReplacedPrint, watcherString(t, w, faultrows.PrintJS), name)
		}
		assert.Contains(t, native, "[native code]")

		// Watched again and closed, the tab's next document has its own
		// print: Close removed the script, each Watch's.
		wb2 := watch(t, before, nil)
		require.NoError(t, wb.Close())
		require.NoError(t, wb2.Close())
		require.NoError(t, navigate(t, before, srv.URL))
		require.NoError(t, before.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
		assert.Contains(t, evalString(t, before, faultrows.PrintJS), "[native code]", "a document loaded after Close")
	})
}

// TestPermissionsBadInput: a grant that cannot be set fails Watch and
// WatchBrowser with ErrInvalidArgument.
func TestPermissionsBadInput(t *testing.T) {
	t.Parallel()
	page := testbrowser.NewPage(t, testbrowser.Shared(t))
	tests := []struct {
		name  string
		grant tabguard.PermissionGrant
	}{
		{"empty origin", tabguard.PermissionGrant{Permissions: []string{"geolocation"}}},
		{"no scheme", tabguard.PermissionGrant{Origin: "example.com", Permissions: []string{"geolocation"}}},
		{"a path", tabguard.PermissionGrant{Origin: "https://example.com/app", Permissions: []string{"geolocation"}}},
		{"unknown name", tabguard.PermissionGrant{Origin: "https://example.com", Permissions: []string{"teleport"}}},
		{"no name", tabguard.PermissionGrant{Origin: "https://example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &tabguard.Options{Permissions: []tabguard.PermissionGrant{tt.grant}}
			_, err := tabguard.Watch(page, opts)
			assert.ErrorIs(t, err, tabguard.ErrInvalidArgument)
			_, err = tabguard.WatchBrowser(page.Browser(), opts)
			assert.ErrorIs(t, err, tabguard.ErrInvalidArgument)
		})
	}
}

// launchPublic launches a headless Chromium of the test's own that takes
// the server pub for a public site, and closes it when t ends.
func launchPublic(t *testing.T, pub *httptest.Server) *testbrowser.Browser {
	t.Helper()
	bin, err := testbrowser.Bin()
	require.NoError(t, err)
	dir := t.TempDir()
	name, value := faultrows.PublicFlag(pub)
	l := launcher.New().Bin(bin).Headless(true).NoSandbox(true).Leakless(false).
		UserDataDir(filepath.Join(dir, "profile")).
		Set("disable-gpu").Set("no-first-run").Set("disable-background-networking").Set("disable-sync").
		Set(flags.Flag(name), value)
	u, err := l.Launch()
	require.NoError(t, err)
	rb := rod.New().ControlURL(u)
	if err := rb.Connect(); err != nil {
		l.Kill()
		t.Fatal(err)
	}
	b := &testbrowser.Browser{Browser: rb, Launcher: l, URL: u}
	t.Cleanup(b.Close)
	return b
}

// evalString evaluates js with args on page, with rod alone, for its
// string result.
func evalString(t *testing.T, page *rod.Page, js string, args ...any) string {
	t.Helper()
	res, err := page.Context(testbrowser.Context(t, 10*time.Second)).Eval(js, args...)
	require.NoError(t, err)
	return res.Value.Str()
}

// watcherString evaluates js with args through w, for its string result.
func watcherString(t *testing.T, w *tabguard.Watcher, js string, args ...any) string {
	t.Helper()
	res, err := w.Eval(testbrowser.Context(t, 10*time.Second), js, args...)
	require.NoError(t, err)
	return res.Value.Str()
}

// hostOf is rawURL's host:port.
func hostOf(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err)
	return u.Host
}
