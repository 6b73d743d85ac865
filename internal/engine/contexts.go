package engine

import (
	"context"
	"fmt"
)

// Browser contexts. Chrome keeps the download and permission policies per
// browser context: set with no browserContextId, they hold in the default
// context alone. Measured on Chromium 156, in an incognito context
// (Target.createBrowserContext) with Config.DownloadDir set, a download
// was not saved there ("canceled"). So the Browser sets its policies in
// every context of the browser: in the default one and in those that
// Target.getBrowserContexts lists as it starts, and in each context it
// learns of later from a target's browserContextId (Target.targetCreated),
// at once. A tab's start waits for its context's policies (awaitContext),
// so its first load is under them. A context's settings go with the
// context when the program disposes of it.

// contextsResult is Target.getBrowserContexts's.
type contextsResult struct {
	BrowserContextIDs       []string `json:"browserContextIds"`
	DefaultBrowserContextID string   `json:"defaultBrowserContextId"`
}

// contextPolicy is the setting of the policies in one browser context.
type contextPolicy struct {
	done chan struct{} // closed once Chrome answered their calls, or one failed
	err  error         // why they failed; set before done closes
}

// inContext names the browser context bc in a call's name, as a timeout
// names the call: "" for the default one.
func inContext(bc string) string {
	if bc == "" {
		return ""
	}
	return " in browser context " + bc
}

// setPolicies sets the download and permission policies in the browser
// context bc, all at once.
func (b *Browser) setPolicies(ctx context.Context, s *starter, bc string) error {
	errs := together(
		func() error { return b.downloadPolicy(ctx, s, bc) },
		func() error { return b.permissionPolicy(ctx, s, bc) },
	)
	for i, what := range []string{"set its download policy", "set its permission policy"} {
		if errs[i] != nil {
			if te, ok := startTimeout(errs[i]); ok {
				return te
			}
			return fmt.Errorf("%s%s: %w", what, inContext(bc), errs[i])
		}
	}
	return nil
}

// startContexts sets the policies in the browser contexts other than the
// default that the browser has as Start lists them, and waits for them
// within ctx.
func (b *Browser) startContexts(ctx context.Context, s *starter, res contextsResult) error {
	b.cmu.Lock()
	b.defaultContext = res.DefaultBrowserContextID
	b.cmu.Unlock()
	var calls []func() error
	for _, bc := range res.BrowserContextIDs {
		if p := b.context(bc); p != nil {
			calls = append(calls, func() error { return b.awaitPolicy(ctx, s, bc, p) })
		}
	}
	if len(calls) == 0 {
		return nil
	}
	for _, err := range together(calls...) {
		if err != nil {
			return err
		}
	}
	return nil
}

// learnContext takes in a target's browser context: a context new to the
// Browser has its policies set at once, in the background. Like every
// intake method it never blocks.
func (b *Browser) learnContext(bc string) {
	if bc != "" && b.cfg.DiscoverTargets {
		b.context(bc)
	}
}

// context returns the policies' setting in the browser context bc,
// starting it when bc is new; nil for the default context, which Start
// sets, and once the Browser is closed.
func (b *Browser) context(bc string) *contextPolicy {
	b.cmu.Lock()
	defer b.cmu.Unlock()
	if bc == "" || bc == b.defaultContext {
		return nil
	}
	if p := b.contexts[bc]; p != nil {
		return p
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return nil
	}
	p := &contextPolicy{done: make(chan struct{})}
	if b.contexts == nil {
		b.contexts = map[string]*contextPolicy{}
	}
	b.contexts[bc] = p
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer close(p.done)
		ctx, cancel, s := b.cfg.begin(b.life, "watch browser context "+bc)
		defer cancel()
		p.err = b.setPolicies(ctx, s, bc)
		if p.err != nil && b.life.Err() == nil {
			if log := b.cfg.Logger; log != nil {
				log.Warn("tabguard: policies not set in a browser context", "browserContext", bc, "err", p.err)
			}
		}
	}()
	return p
}

// awaitPolicy waits, within ctx, until the policies are set in the
// browser context bc, and returns why they were not.
func (b *Browser) awaitPolicy(ctx context.Context, s *starter, bc string, p *contextPolicy) error {
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		if ctx.Err() == context.DeadlineExceeded {
			return s.timeout("the policies" + inContext(bc))
		}
		return ctx.Err()
	}
}

// awaitContext waits, within ctx, until the policies are set in the
// browser context bc of a tab that starts, so that its loads are under
// them.
func (t *Tab) awaitContext(ctx context.Context, s *starter, bc string) error {
	p := t.b.context(bc)
	if p == nil {
		return nil
	}
	return t.b.awaitPolicy(ctx, s, bc, p)
}

// contextIDs lists the browser contexts whose policies the Browser set or
// is setting, for their undoing.
func (b *Browser) contextIDs() []string {
	b.cmu.Lock()
	defer b.cmu.Unlock()
	ids := make([]string, 0, len(b.contexts))
	for bc := range b.contexts {
		ids = append(ids, bc)
	}
	return ids
}
