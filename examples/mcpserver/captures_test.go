package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
)

// docPages serves "/doc", a page of three printed pages, from 127.0.0.1.
func docPages(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>doc</title><style>section{break-after:page}</style>`)
		for i := range 3 {
			fmt.Fprintf(w, "<section><h1>page %d</h1><p>héllo wörld</p></section>", i+1)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// captured calls a capture tool that must succeed, decodes its structured
// result into out and returns its content, which is no text alone.
func captured(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out *CaptureOutput) []mcp.Content {
	t.Helper()
	res := call(t, cs, name, args)
	require.False(t, res.IsError, "%s: %v", name, res.Content)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, out))
	return res.Content
}

// png returns the one PNG image of a screenshot's content.
func png(t *testing.T, content []mcp.Content) []byte {
	t.Helper()
	require.Len(t, content, 1)
	img, isImage := content[0].(*mcp.ImageContent)
	require.True(t, isImage, "content is %T", content[0])
	assert.Equal(t, "image/png", img.MIMEType)
	assert.True(t, bytes.HasPrefix(img.Data, []byte("\x89PNG")), "a PNG")
	return img.Data
}

func TestScreenshotAndPDF(t *testing.T) {
	cs := connect(t)
	srv := docPages(t)
	tab := openTab(t, cs, srv.URL+"/doc")

	for _, full := range []bool{false, true} {
		var out CaptureOutput
		data := png(t, captured(t, cs, "screenshot", map[string]any{"tab": tab, "full_page": full}, &out))
		assert.Equal(t, CaptureOutput{Tab: tab, URL: srv.URL + "/doc", Bytes: len(data)}, out, "full_page %v", full)
	}

	var out CaptureOutput
	content := captured(t, cs, "pdf", map[string]any{"tab": tab, "landscape": true, "print_background": true}, &out)
	require.Len(t, content, 2)
	tc, isText := content[0].(*mcp.TextContent)
	require.True(t, isText, "content is %T", content[0])
	er, isResource := content[1].(*mcp.EmbeddedResource)
	require.True(t, isResource, "content is %T", content[1])
	assert.Equal(t, "application/pdf", er.Resource.MIMEType)
	assert.True(t, bytes.HasPrefix(er.Resource.Blob, []byte("%PDF-")), "a PDF")
	assert.Equal(t, CaptureOutput{Tab: tab, URL: srv.URL + "/doc", Bytes: len(er.Resource.Blob)}, out)
	assert.Equal(t, fmt.Sprintf("PDF of %s/doc, %d bytes", srv.URL, out.Bytes), tc.Text)
}

// A full page over the watchers' bound in pixels is refused with its size,
// naming the screenshot that answers instead; the viewport answers.
func TestScreenshotTooLarge(t *testing.T) {
	cs := connectWith(t, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: config{blocked: defaultBlocked}.policy(), MaxCapturePixels: 100_000}, nil)
	tab := openTab(t, cs, pages(t).URL+"/big")
	msg := fails(t, cs, "screenshot", map[string]any{"tab": tab, "full_page": true})
	assert.Regexp(t, `^capture too large: full-page screenshot of \d+×\d+ device pixels is \d+\.\d megapixels, over the bound of 0\.1 megapixels: `+
		`call screenshot with full_page false for the viewport$`, msg)
	var out CaptureOutput
	png(t, captured(t, cs, "screenshot", map[string]any{"tab": tab}, &out))
}

// A PDF over maxCaptureBytes stops as it streams in.
func TestCappedBuffer(t *testing.T) {
	b := cappedBuffer{max: 4}
	_, err := b.Write([]byte("%PDF"))
	require.NoError(t, err)
	_, err = b.Write([]byte("-"))
	assert.ErrorIs(t, err, errCaptureBytes)
	assert.Equal(t, "%PDF", b.String())
}

// A script that loops is stopped at a screenshot's deadline, and the next
// one answers; recover_tab, called first, stops it too, and says so. A
// renderer that hangs outside JavaScript makes a screenshot name
// recover_tab, never a Go call, and recover_tab crashes and reloads it.
// A tab that answers is left alone.
func TestRecoverTab(t *testing.T) {
	cs := connectBusy(t) // it waits out two timeouts
	srv := pages(t)
	tab := openTab(t, cs, srv.URL)
	var out CaptureOutput
	loop := map[string]any{"tab": tab, "js": "() => { setTimeout(() => { for (;;) {} }, 0) }"}

	var r RecoverTabOutput
	ok(t, cs, "recover_tab", map[string]any{"tab": tab}, &r)
	assert.Equal(t, RecoverTabOutput{Tab: tab, URL: srv.URL + "/", Action: "nothing", Result: "tab answered: nothing"}, r)

	ok(t, cs, "eval_in_tab", loop, nil)
	msg := fails(t, cs, "screenshot", map[string]any{"tab": tab})
	assert.Contains(t, msg, "screenshot timed out after 3s (busy running script")
	assert.Contains(t, msg, "script terminated, the tab answers again")
	assert.NotContains(t, msg, "Watcher.")
	png(t, captured(t, cs, "screenshot", map[string]any{"tab": tab}, &out))

	ok(t, cs, "eval_in_tab", loop, nil)
	ok(t, cs, "recover_tab", map[string]any{"tab": tab}, &r)
	assert.Equal(t, "terminated the script", r.Action)
	assert.True(t, strings.HasSuffix(r.Result, ": terminated the script"), r.Result)
	assert.NotContains(t, r.Result, "Watcher.")
	png(t, captured(t, cs, "screenshot", map[string]any{"tab": tab}, &out))

	hangTab(t, tab)
	msg = fails(t, cs, "screenshot", map[string]any{"tab": tab})
	assert.Contains(t, msg, "screenshot timed out after 3s")
	assert.Contains(t, msg, "call recover_tab")
	assert.NotContains(t, msg, "Watcher.")
	ok(t, cs, "recover_tab", map[string]any{"tab": tab}, &r)
	assert.Equal(t, "crashed the hung renderer and reloaded", r.Action)
	assert.NotContains(t, r.Result, "Watcher.")
	png(t, captured(t, cs, "screenshot", map[string]any{"tab": tab}, &out))
}

// hangTab hangs the tab's renderer outside JavaScript (chrome://hang),
// which the server itself would not open.
func hangTab(t *testing.T, tab string) {
	t.Helper()
	page, err := testBrowser.PageFromTarget(proto.TargetTargetID(tab))
	require.NoError(t, err)
	ctx := testContext(t, 2*time.Second)
	_, _ = proto.PageNavigate{URL: "chrome://hang"}.Call(page.Context(ctx))
	require.Eventually(t, func() bool {
		info, err := proto.TargetGetTargetInfo{TargetID: page.TargetID}.Call(testBrowser.Context(testContext(t, 2*time.Second)))
		return err == nil && info.TargetInfo.URL == "chrome://hang/"
	}, 15*time.Second, 20*time.Millisecond)
}
