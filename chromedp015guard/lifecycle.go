package chromedp015guard

import "context"

// Navigate loads url in the tab and returns once the main frame has
// committed the new document, within ctx's deadline, or Options.EvalTimeout. It works on a
// crashed tab and on one whose last load failed: it is how they recover.
// Unlike chromedp.Navigate it does not wait for the load event; wait for
// TabState.Loaded with [Watcher.Wait] when the whole page is needed.
//
// A load that fails gives [ErrNoDocument] naming the network error, and a
// renderer that dies during the load gives [ErrTabCrashed] as soon as it
// dies. A beforeunload dialog gives [ErrDialogOpen], unless Options.Dialogs
// handles it. A load still pending at the deadline is stopped
// (Page.stopLoading), so the tab keeps the page it had, and gives
// [ErrEvalTimeout]. A URL that Options.URLs does not allow gives
// [ErrURLBlocked], and nothing is loaded.
//
// A URL that turns into a download (a file sent as an attachment) gives
// [ErrDownload] at once, with the file's name and whether it was denied
// (the default) or where Options.DownloadDir got it and its size: an error
// even when the file was saved, since a download is not a page and the
// tab keeps the page it had, which answers the next call.
//
// A page that navigates itself can race the call: a navigation the old
// page started before the new document committed may still replace it
// (Chrome commits both, in the order they started). Navigate returns at
// its own commit; TabState.URL then names the navigation under way, and an
// eval that the replacement cuts short gives [ErrNavigated].
func (w *Watcher) Navigate(ctx context.Context, url string) error { return w.t.Navigate(ctx, url) }

// Reload reloads the tab with Page.reload, which the browser side handles,
// and returns once the new document has committed, within
// ctx's deadline, or Options.EvalTimeout, with the errors of [Watcher.Navigate]. It works on a
// crashed tab, one whose load failed, or one whose script is busy. A
// crashed tab loads the URL it had again: a renderer that died after its
// page committed but before it loaded leaves Chrome's history at the entry
// before, which Page.reload would bring back.
func (w *Watcher) Reload(ctx context.Context) error { return w.t.Reload(ctx) }

// Wait returns the tab's state once cond holds for it, waking on each change
// the tab's events bring, with no polling: for example
//
//	w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Loaded })
//
// waits for the page's load event after [Watcher.Navigate]. Wait stops early
// when calls on the tab are refused and cond does not hold, returning the
// state with the [*BlockedError]. It is bounded as every call is: at
// ctx's deadline, or the eval timeout when ctx has none, it answers a
// [*TimeoutError] (Op "wait") that says what the tab was doing, the
// milestones its document reached (TimeoutError.Milestones) and the ones
// it did not, and says so when one will not come: Chrome reports first
// meaningful paint only for a document that painted before its network
// grew almost idle. It returns ctx's error when ctx is canceled, and
// [ErrWatcherClosed] when the watcher closes. cond runs under the
// watcher's lock: it must not call the watcher.
func (w *Watcher) Wait(ctx context.Context, cond func(TabState) bool) (TabState, error) {
	return w.t.Wait(ctx, cond)
}
