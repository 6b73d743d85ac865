package agentprompt_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// site serves faultrows.Chooser's page, /link (a link over the whole
// page, to the chooser) and /framed (an iframe of the chooser).
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc(faultrows.ChooserPath, faultrows.Chooser)
	mux.HandleFunc("/link", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><a href=%q style="position:absolute;inset:0">chooser</a>`, faultrows.ChooserPath)
	})
	mux.HandleFunc("/framed", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><iframe src=%q></iframe>`, faultrows.ChooserPath)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// A click on a file input gives it what the state set on the tab, once,
// and reports the names it took; with none set the chooser is cancelled
// and Click says so. A click elsewhere names the element; one that
// follows a link is done.
func TestClick(t *testing.T) {
	dir, _ := uploads(t)
	cfg := agentprompt.Config{UploadDir: dir}
	srv := site(t)
	page := testbrowser.Page(t)
	tab := string(page.TargetID)
	state := agentprompt.NewState(cfg, func(frame string) string {
		if frame == tab {
			return tab // the main frame: the test's one tab, which has no iframe
		}
		return ""
	})
	opts := tabguard.Options{EvalTimeout: 5 * time.Second}
	state.SetCallbacks(&opts)
	w, err := tabguard.Watch(page, &opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	ctx := testbrowser.Context(t, 60*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL+faultrows.ChooserPath))

	_, err = agentprompt.Click(ctx, w, faultrows.ChooserX, faultrows.ChooserSingleY)
	require.Error(t, err)
	assert.True(t, errors.Is(err, tabguard.ErrFileChooser), "cancelled: %v", err)

	paths, err := cfg.UploadPaths([]string{"a.txt"})
	require.NoError(t, err)
	state.SetFiles(tab, paths)
	got, err := agentprompt.Click(ctx, w, faultrows.ChooserX, faultrows.ChooserSingleY)
	require.NoError(t, err)
	assert.Equal(t, agentprompt.Clicked{Tag: "input", Files: []string{"a.txt"}}, got)
	seen, err := w.Eval(ctx, faultrows.ChooserSeen, 2)
	require.NoError(t, err)
	assert.Equal(t, "one:cancel one:change:a.txt/5", seen.Value.Str(), "the page got the file")

	got, err = agentprompt.Click(ctx, w, 500, 500)
	require.NoError(t, err)
	assert.Equal(t, agentprompt.Clicked{Tag: "html"}, got, "a click on no input opens nothing")

	require.NoError(t, w.Navigate(ctx, srv.URL+"/link"))
	got, err = agentprompt.Click(ctx, w, 100, 100)
	require.NoError(t, err, "a click that follows a link is done")
	assert.Equal(t, "a", got.Tag)
	_, err = w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded && s.URL == srv.URL+faultrows.ChooserPath })
	require.NoError(t, err, "the link was followed")
}

// TabOf finds a tab by its own ID or by one of its iframes.
func TestTabOf(t *testing.T) {
	srv := site(t)
	page := testbrowser.Page(t)
	w, err := tabguard.Watch(page, &tabguard.Options{EvalTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	ctx := testbrowser.Context(t, 60*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL+"/framed"))
	require.Eventually(t, func() bool { return len(w.Frames()) == 1 }, 10*time.Second, 10*time.Millisecond, "the iframe is listed")

	tab := string(page.TargetID)
	tabs := map[string]*tabguard.Watcher{tab: w}
	assert.Equal(t, tab, agentprompt.TabOf(tabs, tab), "the main frame")
	assert.Equal(t, tab, agentprompt.TabOf(tabs, w.Frames()[0].ID), "its iframe")
	assert.Equal(t, "", agentprompt.TabOf(tabs, "F9"), "a frame of no tab")
	assert.Equal(t, "", agentprompt.TabOf(nil, tab), "no tabs")
}
