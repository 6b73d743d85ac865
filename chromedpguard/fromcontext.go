package chromedpguard

import "context"

// watcherKey is the context key under which a guard gives an action its
// watcher; no other package can make one, so no other value collides.
type watcherKey struct{}

// FromContext returns the watcher whose guard runs the action that was
// given ctx, or a context derived from it: [Guard], [GuardSteps] and
// [Watcher.Do] put it in the context they give an action, so an action
// written apart from the code that made the watcher can read the tab's
// [Watcher.State]. ok is false outside a guard.
func FromContext(ctx context.Context) (w *Watcher, ok bool) {
	w, ok = ctx.Value(watcherKey{}).(*Watcher)
	return w, ok
}

// withWatcher returns ctx carrying w, for FromContext.
func withWatcher(ctx context.Context, w *Watcher) context.Context {
	return context.WithValue(ctx, watcherKey{}, w)
}
