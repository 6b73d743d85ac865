package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// closeRetry is how long closeTarget waits for Chrome to report the tab
// gone before it asks again: half the engine's patience (500 ms by
// default), or more as the link shows.
func (b *Browser) closeRetry() time.Duration { return b.due(b.cfg.patience() / 2) }

// CloseTarget asks Chrome to close tab id until it reports the tab gone
// (the target leaves the list) or ctx ends. Measured on Chromium 156 on a
// loaded machine: now and then Chrome answers Target.closeTarget and never
// closes the tab (5 in 15 tabs that had just loaded about:blank); asking
// again closes it. The answer to a repeated call is ignored: the event
// decides.
func (b *Browser) CloseTarget(ctx context.Context, id string) error {
	return b.closeTarget(ctx, id, nil)
}

// closeTarget is CloseTarget. t, when set, is the tab's Tab: a
// beforeunload dialog open on it, now or while Chrome closes it, is
// accepted (see stayAnswer.accept).
func (b *Browser) closeTarget(ctx context.Context, id string, t *Tab) error {
	removed := b.removed(id)
	var stay stayAnswer
	changed := stay.accept(ctx, t)
	call := func() error { return b.browserCall(ctx, "Target.closeTarget", targetParams{TargetID: id}, nil) }
	if err := call(); err != nil {
		if b.noTarget(err) {
			return nil // gone already: what closing it was for
		}
		return err
	}
	b.mu.RLock()
	listening := !b.closed && !b.gone
	b.mu.RUnlock()
	if !listening {
		return nil // no event will say: Chrome's answer is all there is
	}
	retry := time.NewTicker(b.closeRetry())
	defer retry.Stop()
	for {
		select {
		case <-removed:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("the browser has not closed it: %w", ctx.Err())
		case <-retry.C:
			_ = call()
		case <-changed:
			changed = stay.accept(ctx, t)
		}
	}
}

// noTarget reports whether err is Chrome's answer about a target it does
// not have.
func (b *Browser) noTarget(err error) bool {
	f := b.classify(err)
	return f.Kind == Protocol && f.Code == -32602 && strings.Contains(f.Message, "No target with given id")
}

// CloseOwnTab closes tab id within the eval timeout, where Open gives up
// on a tab of its own.
func (b *Browser) CloseOwnTab(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.timeout())
	defer cancel()
	if err := b.CloseTarget(ctx, id); err != nil {
		return fmt.Errorf("close tab %s: %w", id, err)
	}
	return nil
}

// CloseTab closes the watched tab from the browser side, which works
// whatever the renderer does (crashed, hung, holding a dialog), and then
// the Tab. It returns once the tab is gone from Tabs. Closing a tab that
// is gone already is no error. A tab Chrome has not closed within ctx and
// the eval timeout gives an error that says so; the Tab is closed all the same.
// A page that asks to stay (a beforeunload handler) is closed anyway,
// unless AskBeforeClose is set: see closeAsking.
func (t *Tab) CloseTab(ctx context.Context) error {
	if !t.tracing(ctx) {
		return t.closeTab(ctx)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpCloseTab)
	err := t.closeTab(ctx)
	t.callDone(ctx, rec, err)
	return err
}

// closeTab is CloseTab.
func (t *Tab) closeTab(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context", tabstate.ErrInvalidArgument)
	}
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	if t.b.cfg.AskBeforeClose {
		if done, err := t.closeAsking(cctx); done {
			if err == nil {
				t.Close()
			}
			return err
		}
	}
	err := t.b.closeTarget(cctx, t.id, t)
	if err != nil && !t.State().Closed {
		var be *tabstate.BlockedError
		if !errors.As(t.classify(err), &be) || be.Reason != tabstate.ErrTabClosed {
			err = fmt.Errorf("close tab %s: %w", t.id, err)
			t.Close()
			return err
		}
	}
	t.Close()
	return nil
}

// Open opens a new tab and watches it with attach, the driver's way to
// attach to a target; when url is not empty, it loads url as Navigate does,
// within ctx and the eval timeout. Once the tab exists it returns what
// attach made, also with the load's error: a failed load leaves the tab
// open, refused with the reason. A URL the policy does not allow gives
// ErrURLBlocked, and no tab. When attaching fails or ctx ends first, the
// tab is closed.
func Open[W any](ctx context.Context, b *Browser, url string, attach func(ctx context.Context, id string) (W, *Tab, error)) (W, error) {
	var zero W
	if ctx == nil {
		return zero, fmt.Errorf("%w: nil context", tabstate.ErrInvalidArgument)
	}
	if url != "" && b.cfg.URLs != nil {
		if err := b.cfg.URLs.Check(url); err != nil {
			return zero, err
		}
	}
	var res struct {
		TargetID string `json:"targetId"`
	}
	if err := b.d.Call(ctx, "Target.createTarget", createTargetParams{URL: "about:blank"}, &res); err != nil {
		return zero, fmt.Errorf("open a tab: %w", err)
	}
	w, t, err := attach(ctx, res.TargetID)
	if err != nil {
		return zero, errors.Join(err, b.CloseOwnTab(res.TargetID))
	}
	if url == "" {
		return w, nil
	}
	return w, t.Navigate(ctx, url)
}
