package tabguard_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestURLPolicyAgreesWithChrome asks Chrome's own URL parser, through
// new URL in a page, where each of many ways of writing an address leads,
// and holds URLPolicy to it: a policy that blocks 127.0.0.1 refuses exactly
// the URLs Chrome reads as 127.0.0.1, and those it cannot read at all
// or reads only by escaping a character the URL standard forbids in a host.
func TestURLPolicyAgreesWithChrome(t *testing.T) {
	t.Parallel()
	page := testbrowser.Page(t)
	w, err := tabguard.Watch(page, nil)
	require.NoError(t, err)
	defer w.Close()
	ctx := testbrowser.Context(t, 30*time.Second)

	forms := []string{
		"http://127.0.0.1:8080/", "http://2130706433:8080/", "http://0x7f000001/", "http://0X7F.0.0.1/",
		"http://0177.0.0.1/", "http://127.1/", "http://127.0.1/", "http://127.0.0.1./", "http://127.0.0.1../",
		"http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]:8080/", "http:127.0.0.1:8080/", `http:\\127.0.0.1\`,
		"http:///127.0.0.1/", "http://user:pass@127.0.0.1/", "http://a@b@127.0.0.1/", "http://%31%32%37.0.0.1/",
		"HTTP://127.0.0.1/", "http://127.0.0.1:80/", "http://127.0.0.1:0080/", "http://127.0.\t0.1/",
		"http://0x7f.0x0.0x0.0x1/", "http://0x7f.1/", "http://0x/", "http://0/", "http://127.0.0.01/",
		"http://127.0.0.1%2e/", "http://127.0.0.1.example/", "http://example.127.0.0.1/", "http://127.0.0.2/",
		"http://256.0.0.1/", "http://1.2.3.4.5/", "http://4294967296/", "http://0x100000000/", "http://09.0.0.1/",
		"http://[::1]/", "http://[::127.0.0.1]/", "http://[::1/", "http://a b/", "http://127.0.0.1:99999/",
		"http://localhost/", "http://LOCALHOST./", "https://127.0.0.1:443/", "http://127.0.0.1#@evil/",
		"http://evil\\@127.0.0.1/", "http://127.0.0.1?@evil/", "http://１２７.０.０.１/",
	}
	loopback := netip.MustParseAddr("127.0.0.1")
	policy := tabguard.URLPolicy{BlockedOrigins: []string{"127.0.0.1"}}
	for _, form := range forms {
		res, err := w.Eval(ctx, `s => { try { return new URL(s).hostname } catch { return null } }`, form)
		require.NoError(t, err)
		host := res.Value.Str()
		invalid := res.Value.Nil()
		addr, perr := netip.ParseAddr(strings.Trim(host, "[]"))
		toLoopback := perr == nil && addr.Unmap() == loopback
		got := policy.Check(form)
		switch {
		case invalid || toLoopback:
			assert.ErrorIs(t, got, tabguard.ErrURLBlocked, "%q: Chrome reads host %q", form, host)
		case strings.Contains(host, "%"):
			// Chrome escapes a space or other character no host may
			// have, where the URL standard refuses the URL, as Check does.
			assert.ErrorIs(t, got, tabguard.ErrURLBlocked, "%q: Chrome reads host %q", form, host)
		default:
			assert.NoError(t, got, "%q: Chrome reads host %q", form, host)
		}
	}
}

// TestURLPolicyRewrittenHostsDoNotLoad navigates through Navigate with
// rewritten forms of the test server's address, which the policy blocks,
// and checks that none reaches the server.
func TestURLPolicyRewrittenHostsDoNotLoad(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			hits.Add(1)
		}
		fmt.Fprint(w, "<title>reached</title>")
	}))
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	page := testbrowser.Page(t)
	w, err := tabguard.Watch(page, &tabguard.Options{URLs: &tabguard.URLPolicy{BlockedOrigins: []string{"127.0.0.1"}}})
	require.NoError(t, err)
	defer w.Close()
	ctx := testbrowser.Context(t, 30*time.Second)
	for _, form := range []string{"http://2130706433:" + port + "/", "http://127.1:" + port + "/", "http:127.0.0.1:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/"} {
		assert.ErrorIs(t, w.Navigate(ctx, form), tabguard.ErrURLBlocked, form)
	}
	// The same forms load through rod, which has no policy: the server counts them.
	direct := testbrowser.Page(t)
	require.NoError(t, rod.Try(func() {
		direct.Timeout(20 * time.Second).MustNavigate("http://2130706433:" + port + "/").MustWaitLoad()
	}))
	assert.Equal(t, int64(1), hits.Load(), "only the unguarded navigation reached the server")
}
