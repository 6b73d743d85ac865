package chromedpguard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedpguard"
)

// exampleRemote returns the Chromium the pool tests share, a browser that
// runs on its own as one of a pool does, starting it on first use;
// TestMain ends it.
func exampleRemote() (*remoteChromium, error) {
	shared.Lock()
	defer shared.Unlock()
	if shared.r == nil && shared.err == nil {
		shared.r, shared.err = startRemoteChromium()
	}
	return shared.r, shared.err
}

// exampleKeyedPool puts the shared remote Chromium behind a 127.0.0.1
// proxy that, as a cloud browser does, answers 401 to a request without
// key in its Authorization header, /json/version and the WebSocket alike.
// The caller should call close when finished.
func exampleKeyedPool(key string) (endpoint string, close func(), err error) {
	remote, err := exampleRemote()
	if err != nil {
		return "", nil, err
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: remote.host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	return srv.URL, srv.Close, nil
}

func ExampleNewRemoteAllocator() {
	remote, err := exampleRemote() // stands in for a browser on another host, or a pool
	if err != nil {
		fmt.Println(err)
		return
	}
	// The connection, its handshake included, lives within ctx.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A browser's DevTools URL; a pool's carries its token (?token=...).
	actx, cancelAlloc := chromedpguard.NewRemoteAllocator(ctx, remote.wsURL)
	defer cancelAlloc()
	tab, closeTab := chromedp.NewContext(actx)
	defer closeTab()
	if err := chromedp.Do(tab); err != nil { // connects, and opens the tab
		fmt.Println(err)
		return
	}

	w, err := chromedpguard.Watch(tab, &chromedpguard.Options{Heartbeat: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	res, err := w.Eval(tab, `() => 6 * 7`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	// Output: 42
}

// A pool that takes its key in a header gets it on every request of the
// handshake.
func ExampleNewRemoteAllocatorWith() {
	const key = "the-pool's-key"
	pool, closePool, err := exampleKeyedPool(key)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	actx, cancelAlloc := chromedpguard.NewRemoteAllocatorWith(ctx, pool, &chromedpguard.ConnectOptions{
		Header: http.Header{"Authorization": {"Bearer " + key}},
	})
	defer cancelAlloc()
	tab, closeTab := chromedp.NewContext(actx)
	defer closeTab()
	if err := chromedp.Do(tab); err != nil {
		fmt.Println(err)
		return
	}
	w, err := chromedpguard.Watch(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	res, err := w.Eval(tab, `() => navigator.userAgent.includes("Chrome")`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	// Output: true
}

func ExampleConnectOptions() {
	const key = "the-pool's-key"
	pool, closePool, err := exampleKeyedPool(key)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closePool()

	// A wrong key: the pool's 401, and no error quotes the key.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedpguard.NewRemoteAllocatorWith(ctx, pool, &chromedpguard.ConnectOptions{
		Header: http.Header{"Authorization": {"Bearer wrong-" + key}},
	})
	defer cancelAlloc()
	tab, closeTab := chromedp.NewContext(actx)
	defer closeTab()
	err = chromedp.Do(tab)
	fmt.Println(strings.Contains(err.Error(), "401"), strings.Contains(err.Error(), key))
	// Output: true false
}
