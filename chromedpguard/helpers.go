package chromedpguard

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/tabguard/tabguard/internal/engine"
)

// DoBrowserSide runs fn under the deadline of [Watcher.Do], for calls that
// Chrome's browser process answers without the tab's renderer: the
// Network domain's cookies, Target.getTargetInfo, the Browser and Storage
// domains. Unlike Do, it goes to a tab whose renderer crashed, that shows
// a dialog, is paused or has no document, and a crash or a dialog in
// flight does not cut it short: only the tab's end does (closed,
// discarded, the browser gone, Close). ctx must be the tab's chromedp
// context or one derived from it, as for Do.
func (w *Watcher) DoBrowserSide(ctx context.Context, fn func(ctx context.Context) error) error {
	if fn == nil {
		return fmt.Errorf("%w: nil func", ErrInvalidArgument)
	}
	if err := w.own(ctx); err != nil {
		return err
	}
	return w.t.DoBrowserSide(ctx, engine.OpBrowserSide, fn)
}

// Cookies returns the cookies of urls, or of the tab's URL when there are
// none, under the deadline of [Watcher.Do]. The browser process answers
// it, so it works on a crashed tab too (see [Watcher.DoBrowserSide]). ctx
// is any context; the call goes to the watched tab.
func (w *Watcher) Cookies(ctx context.Context, urls ...string) ([]*network.Cookie, error) {
	if len(urls) == 0 {
		urls = []string{w.State().URL} // a crashed tab has no document to take them from
	}
	var cookies []*network.Cookie
	err := w.t.DoBrowserSide(ctx, engine.OpCookies, func(ctx context.Context) error {
		res, err := cdp.Call(ctx, w.target, network.GetCookies, network.GetCookiesParams{URLs: urls})
		cookies = res.Cookies
		return err
	})
	return cookies, err
}
