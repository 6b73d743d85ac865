package agentprompt

import (
	"context"
	"errors"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// clickArmJS names the element at x, y, and when it is a file input (or a
// label of one) starts listening for what the input hears after the
// click: the files its chooser was given (change), or none (cancel). A
// chooser always ends one way or the other, as the server answers every
// one; the second is the bound for an input that opens none (disabled).
const clickArmJS = `(x, y) => {
	let el = document.elementFromPoint(x, y);
	const tag = el ? el.tagName.toLowerCase() : "";
	if (el && el.control) el = el.control;
	if (!el || el.type !== "file") return {tag, file: false};
	window.__tabguardClick = new Promise(done => {
		const end = heard => { clearTimeout(timer); done(heard) };
		const timer = setTimeout(() => end({}), 1000);
		el.addEventListener("change", () => end({files: [...el.files].map(f => f.name)}), {once: true});
		el.addEventListener("cancel", () => end({cancelled: true}), {once: true});
	});
	return {tag, file: true};
}`

// clickHeardJS awaits what the file input heard after the click.
const clickHeardJS = `() => { const heard = window.__tabguardClick; delete window.__tabguardClick; return heard }`

// armed is what clickArmJS found at the point.
type armed struct {
	Tag  string `json:"tag"`
	File bool   `json:"file"`
}

// chooserHeard is what a file input heard after the click.
type chooserHeard struct {
	Files []string `json:"files"`
}

// Clicked is what Click found at its point.
type Clicked struct {
	Tag   string   // the element clicked, such as "button"; empty when there is none
	Files []string // the names of the files a file input clicked took
}

// Click presses and releases the left button at x, y (CSS pixels in the
// viewport), as a user would, in one guarded call ([tabguard.Watcher.Do]).
// A file input clicked opens its chooser, which the watcher answers
// through its Options.FileChooser (see State.FileChooser); Click awaits
// what the input hears, so a cancelled chooser returns the watcher's
// ErrFileChooser. A click that followed a link is done, not an error:
// Click returns what it found before the page left.
func Click(ctx context.Context, w *tabguard.Watcher, x, y float64) (Clicked, error) {
	var at armed
	var heard chooserHeard
	err := w.Do(ctx, func(p *rod.Page) error {
		res, err := p.Evaluate(rod.Eval(clickArmJS, x, y))
		if err != nil {
			return err
		}
		if err := res.Value.Unmarshal(&at); err != nil {
			return err
		}
		if err := press(p, x, y); err != nil {
			return err
		}
		if !at.File {
			return nil
		}
		res, err = p.Evaluate(rod.Eval(clickHeardJS).ByPromise())
		if err != nil {
			return err
		}
		return res.Value.Unmarshal(&heard)
	})
	if errors.Is(err, tabguard.ErrNavigated) {
		err = nil // the click followed a link: done, and not to be repeated
	}
	if err != nil {
		return Clicked{}, err
	}
	return Clicked{Tag: at.Tag, Files: heard.Files}, nil
}

// press moves the mouse to x, y and clicks there with the left button.
func press(p *rod.Page, x, y float64) error {
	events := []proto.InputDispatchMouseEvent{
		{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: x, Y: y},
		{Type: proto.InputDispatchMouseEventTypeMousePressed, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
		{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
	}
	for _, ev := range events {
		if err := ev.Call(p); err != nil {
			return err
		}
	}
	return nil
}
