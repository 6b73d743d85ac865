package engine

import (
	"context"
	"errors"
	"time"
)

// heartbeat sends Browser.getVersion every interval until the Browser
// closes. Chrome answers it from its browser process whatever its tabs
// do, so a heartbeat unanswered within its bound means the connection
// went silent, as a proxy that stops forwarding but keeps both sockets
// open leaves it, and every tab then fails with ErrBrowserGone, calls in
// flight included. The bound is the interval, or linkMargin of the link's
// slowest recent round trip when that is longer (link.go): a distant
// browser is never taken for a silent one, and a silent link is found
// within the interval plus one bound. The calls also count as traffic for
// a pool that closes idle connections.
func (b *Browser) heartbeat(interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-b.life.Done():
			return
		case <-tick.C:
		}
		if b.resuming() {
			continue // the connection resumes, or ends, by itself
		}
		drops := b.drops()
		bound := max(interval, linkMargin*b.link.slowest()).Round(time.Millisecond)
		ctx, cancel := context.WithTimeout(b.life, bound)
		err := b.browserCall(ctx, "Browser.getVersion", nil, nil)
		cancel()
		switch {
		case err == nil:
		case b.life.Err() != nil:
			return
		case b.drops() != drops || b.resuming():
			// The connection dropped under the heartbeat: not silent.
		case errors.Is(err, context.DeadlineExceeded):
			b.heartbeatMissed(bound)
			b.Disconnected("no answer from the browser for " + bound.String())
			return
		default:
			if !b.lost() {
				b.Disconnected(b.classify(err).Reason)
			}
			return
		}
	}
}

// LostReason says why the connection ended, once the driver has seen it
// end: it asks the browser something, to learn why from the error the
// driver gives every call after the end; "" when that error does not say
// (see Disconnected). The driver answers that call itself, at once; the
// bound is the engine's patience all the same.
func (b *Browser) LostReason() string {
	ctx, cancel := context.WithTimeout(context.Background(), b.patience())
	defer cancel()
	err := b.d.Call(ctx, "Browser.getVersion", nil, nil)
	if f := b.d.Classify(err); err != nil && f.Kind == Lost {
		return f.Reason
	}
	return ""
}
