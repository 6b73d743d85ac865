package engine

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// Screenshot runs fn, the driver's own screenshot of the tab, under the
// guard of DoAction, named "screenshot" in a timeout, which says what the
// tab was doing: hidden (a background tab paints only now and then),
// busy in a script, or hung. A full page is measured first
// (Page.getLayoutMetrics): one over Config.MaxCapturePixels gives
// [tabstate.ErrCaptureTooLarge], naming its size and the bound, and fn is
// not called. option names that setting in the error, as the backend
// spells it. A renderer that dies under the capture answers
// [tabstate.ErrTabCrashed], whatever error Chrome answered first
// (crashedUnder).
func (t *Tab) Screenshot(ctx context.Context, fullPage bool, option string, fn func(ctx context.Context) error) error {
	return t.DoAction(ctx, OpScreenshot, func(ctx context.Context) error {
		if fullPage {
			if err := t.fits(ctx, option); err != nil {
				return t.crashedUnder(ctx, err)
			}
		}
		return t.crashedUnder(ctx, fn(ctx))
	})
}

// crashedUnder returns err, a capture's error, unless it is Chrome's
// error reply and the renderer died under the capture. Measured on
// Chromium 156: a renderer that dies under Page.printToPDF makes Chrome
// answer "Printing failed" (-32000), and its crash events follow the
// reply, by up to 16 ms beside two busy loops and by more than 100 ms
// beside four. So the crash is awaited for eventGrace, and then, if it
// has not come, until the renderer answers an interrupt (diedUnder). The
// crash cuts the call short (ctx ends with it), and the crash, with its
// status, is the answer, as it is for a capture it cut short before
// Chrome replied (Page.captureScreenshot gets no reply from a dead
// renderer). A printed document is no capture of the renderer's: its
// stream is the browser's, read to its end whatever the renderer does
// (pdf.go). Any other error passes through at once.
func (t *Tab) crashedUnder(ctx context.Context, err error) error {
	if err == nil || t.b.d.Classify(err).Kind != Protocol {
		return err
	}
	crashed := func() bool { return t.tab.State().Crashed }
	if !t.await(ctx, t.b.cfg.grace(), crashed) && !t.diedUnder(ctx) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err() // cut short by the crash: its refusal is the answer (settle)
	}
	return t.blocked(tabstate.ErrTabCrashed)
}

// diedUnder reports whether the tab's renderer is dead, as its crash
// events show, when they come before the renderer answers an interrupt
// (Performance.getMetrics). A live renderer answers one in milliseconds,
// even while a script holds its main thread; a dead one never answers,
// and its crash cuts the interrupt short. The wait ends with ctx or after
// the engine's patience (Browser.due), whichever is first.
func (t *Tab) diedUnder(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, t.b.patience())
	defer cancel()
	_ = t.probe(ctx, func(ctx context.Context) error { return t.s.Call(ctx, "Performance.getMetrics", nil, nil) })
	return t.State().Crashed
}

// fits reads the page's size and refuses a full-page capture over the
// bound.
func (t *Tab) fits(ctx context.Context, option string) error {
	bound := t.b.cfg.maxCapturePixels()
	if bound == 0 {
		return nil
	}
	var m layoutMetrics
	if err := t.s.Call(ctx, "Page.getLayoutMetrics", nil, &m); err != nil {
		return err
	}
	// contentSize is in device pixels on a scaled screen, cssContentSize
	// in CSS pixels: the larger of the two is what the bitmap needs.
	w := int64(max(m.ContentSize.Width, m.CSSContentSize.Width) + 0.5)
	h := int64(max(m.ContentSize.Height, m.CSSContentSize.Height) + 0.5)
	if w*h > bound {
		return tabstate.CaptureTooLarge(w, h, bound, option)
	}
	return nil
}

type layoutMetrics struct {
	ContentSize    size `json:"contentSize"`
	CSSContentSize size `json:"cssContentSize"`
}

type size struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}
