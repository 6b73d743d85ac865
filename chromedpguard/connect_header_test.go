package chromedpguard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

// keyedPool puts the shared remote Chromium behind a 127.0.0.1 proxy
// that, as a cloud browser does, answers 401 to a request without its key
// in the Authorization header, /json/version and the WebSocket alike.
func keyedPool(t *testing.T, key string) (endpoint string) {
	t.Helper()
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: sharedRemote(t).host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		r.Header.Del("Authorization")
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRemoteAllocatorWithHeader: NewRemoteAllocatorWith sends a pool its
// key in a header, on /json/version and on the WebSocket, and a watcher
// works through it; a wrong key is the pool's 401, and no error quotes it.
func TestRemoteAllocatorWithHeader(t *testing.T) {
	t.Parallel()
	const key = "k3y-of-the-pool"
	endpoint := keyedPool(t, key)

	actx, cancelAlloc := chromedpguard.NewRemoteAllocatorWith(context.Background(), endpoint,
		&chromedpguard.ConnectOptions{Header: http.Header{"Authorization": {"Bearer " + key}}})
	t.Cleanup(cancelAlloc)
	tab, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(tab), "connect and open a tab")
	w := watch(t, tab, nil)
	require.NoError(t, w.Navigate(within(t, 20*time.Second), serve(t).URL))
	_, err := w.Wait(within(t, 20*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	v, err := w.Eval(within(t, 10*time.Second), `() => document.title`)
	require.NoError(t, err)
	assert.Equal(t, `"ok"`, string(v.Value))

	for _, h := range []http.Header{nil, {"Authorization": {"Bearer wrong-" + key}}} {
		actx, cancelAlloc := chromedpguard.NewRemoteAllocatorWith(context.Background(), endpoint, &chromedpguard.ConnectOptions{Header: h})
		tab, cancel := chromedp.NewContext(actx)
		ctx, cancelRun := context.WithTimeout(tab, 10*time.Second)
		err := chromedp.Do(ctx)
		cancelRun()
		cancel()
		cancelAlloc()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "401")
		assert.False(t, strings.Contains(err.Error(), key), "the key stays out of errors: %v", err)
	}
}
