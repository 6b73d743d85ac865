package chromedpguard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// stallServer serves faultrows.FramePages and returns, with it, a channel
// that receives once the stalled iframe's request has reached the server.
func stallServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	quit := make(chan struct{})
	asked := make(chan struct{}, 1)
	pages := faultrows.FramePages(deadURL(t), quit)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == faultrows.FramesPrefix+"stall" {
			select {
			case asked <- struct{}{}:
			default:
			}
		}
		pages.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) }) // runs first: Close waits for the handlers
	return srv, asked
}

// TestEvalFrameServerNeverAnswers watches a tab after its page's load
// began, once its iframe's request reached a server that never answers:
// the watcher saw no navigation of the iframe start, and the timeout
// still says the request is pending, naming its URL, not a lazy iframe.
// The page is sent with Page.navigate, which returns at its commit: a
// chromedp.Navigate waits for the load, which the iframe holds up.
func TestEvalFrameServerNeverAnswers(t *testing.T) {
	t.Parallel()
	srv, asked := stallServer(t)
	tab := newTab(t, sharedBrowser)
	nctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	res, err := chromedp.Call(nctx, page.Navigate, page.NavigateParams{URL: srv.URL + faultrows.FramePage("stall")})
	require.NoError(t, err)
	require.Empty(t, res.ErrorText)
	select {
	case <-asked:
	case <-within(t, 10*time.Second).Done():
		t.Fatal("the iframe's request never reached the server")
	}
	w := watch(t, tab, &chromedpguard.Options{EvalTimeout: 2 * time.Second})
	fs := w.Frames()
	require.Len(t, fs, 1)
	assert.True(t, fs[0].Loading, "the iframe holds no document of its own")

	_, err = w.EvalFrame(within(t, 30*time.Second), fs[0].ID, `() => location.href`)
	var te *chromedpguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, chromedpguard.TimeoutLoading, te.Cause)
	assert.Equal(t, fs[0].ID, te.Frame)
	assert.Contains(t, err.Error(), "still loading "+srv.URL+faultrows.FramesPrefix+"stall: its request is still pending: its server never answered")
	assert.NotContains(t, err.Error(), "lazy")
}
