package tabguard

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/engine"
)

// DoBrowserSide runs fn under the deadline of [Watcher.Do], for calls that
// Chrome's browser process answers without the tab's renderer: the
// Network domain's cookies, Target.getTargetInfo, the Browser and Storage
// domains. Unlike Do, it goes to a tab whose renderer crashed, that shows
// a dialog, is paused or has no document, and a crash or a dialog in
// flight does not cut it short: only the tab's end does (closed,
// discarded, the browser gone, Close). A call that needs the renderer
// waits there to its deadline: use Do for it.
func (w *Watcher) DoBrowserSide(ctx context.Context, fn func(page *rod.Page) error) error {
	if fn == nil {
		return fmt.Errorf("%w: nil func", ErrInvalidArgument)
	}
	return w.t.DoBrowserSide(ctx, engine.OpBrowserSide, func(ctx context.Context) error { return fn(w.page.Context(ctx)) })
}

// Cookies returns the cookies of urls, or of the tab's URL when there are
// none, as rod's page.Cookies does, under the deadline of [Watcher.Do]. The
// browser process answers it, so it works on a crashed tab too (see
// [Watcher.DoBrowserSide]).
func (w *Watcher) Cookies(ctx context.Context, urls ...string) ([]*proto.NetworkCookie, error) {
	var cookies []*proto.NetworkCookie
	err := w.t.DoBrowserSide(ctx, engine.OpCookies, func(ctx context.Context) error {
		var err error
		cookies, err = w.page.Context(ctx).Cookies(urls)
		return err
	})
	return cookies, err
}
