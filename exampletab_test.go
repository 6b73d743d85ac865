package tabguard_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// exampleTab opens a tab of a fresh headless Chromium on a 127.0.0.1 page
// serving html, loaded. The examples use it where real code has a page from
// its own rod.Browser. Calling done closes the page, its server and the
// browser. A failure panics: an example has no *testing.T to fail.
func exampleTab(html string) (page *rod.Page, done func()) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
	b, err := testbrowser.Launch()
	if err != nil {
		srv.Close()
		panic(err)
	}
	done = func() { b.Close(); srv.Close() }

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(b.Context(ctx))
	if err == nil {
		page, err = b.PageFromTarget(target.TargetID)
	}
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
