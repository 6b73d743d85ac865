package chromedp015guard

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/engine"
)

// AttachFrame attaches chromedp to an out-of-process iframe's target, as a
// context of its own (chromedp.WithTargetID), and returns a session on the
// chromedp target, which sends on the frame's own session.
//
// Up to v0.15, chromedp's cancel of such a context detaches from its
// target and closes it, and Target.closeTarget on an iframe's target
// closes the whole tab. So the detach detaches the session itself and
// clears the context's Target before the cancel, which then leaves the
// target alone. chromedp binds a target's life to the context of its first
// Run: that Run gets a context of its own, with no deadline, which the
// detach ends; ctx bounds only the wait for it. The frame's context hangs
// on the BrowserWatcher's without its cancel, so nothing but the detach
// ends it.
func (d *driver) AttachFrame(ctx context.Context, targetID string) (engine.Session, func(), error) {
	fctx, cancel := chromedp.NewContext(context.WithoutCancel(d.life), chromedp.WithTargetID(target.ID(targetID)))
	rctx, stop := context.WithCancel(fctx)
	a := &frameAttach{c: chromedp.FromContext(fctx), browser: d.session, stop: stop, cancel: cancel, ran: make(chan struct{})}
	go a.run(rctx)
	detach, ok := d.keep(a.detach)
	if !ok {
		detach()
		return nil, nil, fmt.Errorf("%w: the BrowserWatcher is closed", ErrWatcherClosed)
	}
	select {
	case <-a.ran:
	case <-ctx.Done():
		detach()
		return nil, nil, ctx.Err()
	}
	if a.err != nil {
		detach()
		return nil, nil, a.err
	}
	return session{t: a.c.Target}, detach, nil
}

// frameAttach is chromedp attached to a frame's target.
type frameAttach struct {
	c       *chromedp.Context
	browser session
	stop    context.CancelFunc // ends the first Run's context: the target's life
	cancel  context.CancelFunc // ends the frame's chromedp context
	ran     chan struct{}      // closed when the first Run returned
	err     error              // the first Run's error, set before ran closes
	once    sync.Once
}

// run makes the first Run of the frame's context, which attaches.
func (a *frameAttach) run(ctx context.Context) {
	defer close(a.ran)
	a.err = chromedp.Run(ctx)
}

// detach ends the attach: it stops a Run still attaching, detaches the
// session and clears the context's Target, so that chromedp's cancel of
// the context neither detaches it again nor closes the frame's target.
func (a *frameAttach) detach() {
	a.once.Do(func() {
		select {
		case <-a.ran:
		default:
			a.stop()
			<-a.ran
		}
		// The Run has returned: nothing writes the Target any more, and
		// chromedp's cancel reads it only once the context ends.
		if t := a.c.Target; t != nil {
			a.c.Target = nil
			ctx, cancel := context.WithTimeout(context.Background(), detachTimeout)
			_ = a.browser.Call(ctx, "Target.detachFromTarget", struct {
				SessionID string `json:"sessionId"`
			}{string(t.SessionID)}, nil)
			cancel()
		}
		a.stop()
		a.cancel()
	})
}

// detachTimeout bounds the detach of a frame's session.
const detachTimeout = time.Second

// keep records detach until it is called or close calls it; ok is false
// once the driver is closed.
func (d *driver) keep(detach func()) (_ func(), ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return detach, false
	}
	if d.frames == nil {
		d.frames = map[int]func(){}
	}
	d.next++
	id := d.next
	d.frames[id] = detach
	return func() {
		d.mu.Lock()
		delete(d.frames, id)
		d.mu.Unlock()
		detach()
	}, true
}

// close detaches every frame the engine has not, such as one a call
// attached while its watcher closed.
func (d *driver) close() {
	d.mu.Lock()
	d.closed = true
	frames := d.frames
	d.frames = nil
	d.mu.Unlock()
	for _, detach := range frames {
		detach()
	}
}
