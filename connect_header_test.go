package tabguard_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// keyedPool puts a real Chromium behind a 127.0.0.1 proxy that, as a
// cloud browser does, answers 401 to a request without its key in the
// Authorization header, /json/version and the WebSocket alike.
func keyedPool(t *testing.T, key string) (endpoint string) {
	t.Helper()
	remote := startRemoteChromium(t)
	u, err := url.Parse(remote.wsURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: u.Host})
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

// TestConnectWithHeader: ConnectWith sends a pool its key in a header, on
// /json/version and on the WebSocket, and a watcher works through it; a
// wrong key is the pool's 401, and no error quotes the key.
func TestConnectWithHeader(t *testing.T) {
	t.Parallel()
	const key = "k3y-of-the-pool"
	endpoint := keyedPool(t, key)
	ctx := testbrowser.Context(t, 20*time.Second)

	b, err := tabguard.ConnectWith(ctx, endpoint, &tabguard.ConnectOptions{Header: http.Header{"Authorization": {"Bearer " + key}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	target, err := proto.TargetCreateTarget{URL: serve(t).URL}.Call(b.Context(ctx))
	require.NoError(t, err)
	page, err := b.PageFromTarget(target.TargetID)
	require.NoError(t, err)
	w := watch(t, page, nil)
	_, err = w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	res, err := w.Eval(ctx, `() => document.title`)
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Value.Str())

	for _, h := range []http.Header{nil, {"Authorization": {"Bearer wrong-" + key}}} {
		_, err = tabguard.ConnectWith(ctx, endpoint, &tabguard.ConnectOptions{Header: h})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "401")
		assert.False(t, strings.Contains(err.Error(), key), "the key stays out of errors: %v", err)
	}
	_, err = tabguard.ConnectWith(ctx, endpoint, nil)
	require.Error(t, err, "nil options: no header")
}
