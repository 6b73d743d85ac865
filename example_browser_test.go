package tabguard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/wsmeter"
)

// A program that works on several tabs of one browser keeps one
// BrowserWatcher: a Watcher for each tab it works on, and a list of every
// tab, watched or not, from the browser's events alone.
func ExampleBrowserWatcher() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	bw, err := tabguard.WatchBrowser(page.Browser(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	w, err := bw.Open(ctx, page.MustInfo().URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.CloseTab(ctx)
	// Open returns at the commit; the title is there once the page loaded.
	if _, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded }); err != nil {
		fmt.Println(err)
		return
	}
	for _, ti := range bw.Tabs() {
		switch ti.TargetID {
		case page.TargetID:
			fmt.Println("the page the program had:", ti.Watched)
		case w.TargetID():
			fmt.Println("the tab it opened:", ti.Watched)
		}
	}
	res, err := w.Eval(ctx, `() => document.title`)
	fmt.Println(res.Value.Str(), err)
	// Output:
	// the page the program had: false
	// the tab it opened: true
	// Orders <nil>
}

func ExampleTabChangeKind() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	bw, err := tabguard.WatchBrowser(page.Browser(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// A tab the program opens with rod, then watches.
	tab, err := page.Browser().Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := bw.Watch(tab)
	if err != nil {
		fmt.Println(err)
		return
	}
	crashTab(tab)
	for {
		select {
		case c := <-bw.Changes():
			if c.Tab.TargetID != w.TargetID() {
				continue
			}
			switch c.Kind {
			case tabguard.TabOpened:
				fmt.Println("opened")
			case tabguard.TabCrashed:
				fmt.Println("crashed: close it")
				if err := w.CloseTab(ctx); err != nil {
					fmt.Println(err)
					return
				}
			case tabguard.TabClosed:
				fmt.Println("closed")
				return
			}
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}
	// Output:
	// opened
	// crashed: close it
	// closed
}

func ExampleConnectOptions() {
	browser, err := testbrowser.Launch() // stands in for a pool's browser
	if err != nil {
		fmt.Println(err)
		return
	}
	defer browser.Close()
	wsURL, err := wsmeter.ActivePortURL(browser.Launcher.Get(flags.UserDataDir))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The pool: it takes its key in the Authorization header, on
	// /json/version and on the WebSocket handshake alike.
	const key = "the-pool's-key"
	u, err := url.Parse(wsURL)
	if err != nil {
		fmt.Println(err)
		return
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: u.Host})
	pool := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	_, err = tabguard.ConnectWith(ctx, pool.URL, nil)
	fmt.Println(strings.Contains(err.Error(), "401"))
	b, err := tabguard.ConnectWith(ctx, pool.URL, &tabguard.ConnectOptions{
		Header: http.Header{"Authorization": {"Bearer " + key}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	res, err := proto.BrowserGetVersion{}.Call(b.Context(ctx))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(res.Product, "Chrome"))
	// Output:
	// true
	// true
}
