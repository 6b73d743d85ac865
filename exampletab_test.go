package tabguard_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// examples holds the headless Chromium the examples share. Examples run
// one at a time, each in a tab of its own that it closes when done, so
// none sees another's; one browser spares each example a launch.
var examples struct {
	sync.Mutex
	b   *testbrowser.Browser
	err error
}

// exampleBrowser returns the examples' browser, launching it on first use.
func exampleBrowser() (*testbrowser.Browser, error) {
	examples.Lock()
	defer examples.Unlock()
	if examples.b == nil && examples.err == nil {
		examples.b, examples.err = testbrowser.Launch()
	}
	return examples.b, examples.err
}

// closeExampleBrowser ends the examples' browser, if one was launched.
// TestMain calls it after the examples, before checking for leaked
// goroutines.
func closeExampleBrowser() {
	examples.Lock()
	defer examples.Unlock()
	if examples.b != nil {
		examples.b.Close()
		examples.b = nil
	}
}

// exampleTab opens a tab of headless Chromium on a 127.0.0.1 page serving
// html, loaded. The examples use it where real code has a page from its
// own rod.Browser. Calling done closes the tab and its server. A failure
// panics: an example has no *testing.T to fail.
func exampleTab(html string) (page *rod.Page, done func()) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
	b, err := exampleBrowser()
	if err != nil {
		srv.Close()
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(b.Context(ctx))
	if err != nil {
		srv.Close()
		panic(fmt.Errorf("open example tab: %w", err))
	}
	done = func() {
		// From the browser side: the tab may have crashed or hold a dialog.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = proto.TargetCloseTarget{TargetID: target.TargetID}.Call(b.Context(ctx))
		srv.Close()
	}
	page, err = b.PageFromTarget(target.TargetID)
	if err == nil {
		err = page.Context(ctx).Navigate(srv.URL)
	}
	if err == nil {
		err = page.Context(ctx).WaitLoad()
	}
	if err != nil {
		done()
		panic(fmt.Errorf("open example tab: %w", err))
	}
	return page, done
}

// crashTab kills the tab's renderer, as an out-of-memory page would. Chrome
// never answers Page.crash, so the call gets a short context of its own.
func crashTab(page *rod.Page) {
	ctx, cancel := context.WithTimeout(page.GetContext(), 300*time.Millisecond)
	defer cancel()
	_ = proto.PageCrash{}.Call(page.Context(ctx)) // no reply is the expected outcome
}

// deadURL returns an http URL on 127.0.0.1 at a port nothing listens on.
func deadURL() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String() + "/"
}
