package engine

import (
	"context"
	"errors"
	"time"
)

// heartbeatBound is how long a heartbeat waits for its answer, at most:
// Chrome answers Browser.getVersion from its browser process in well under
// a millisecond, whatever its tabs do.
const heartbeatBound = time.Second

// heartbeat sends Browser.getVersion every interval until the Browser
// closes. A heartbeat unanswered within its bound (the interval, at most
// heartbeatBound) means the connection went silent, as a proxy that stops
// forwarding but keeps both sockets open leaves it, and every tab then
// fails with ErrBrowserGone, calls in flight included. The calls also
// count as traffic for a pool that closes idle connections.
func (b *Browser) heartbeat(interval time.Duration) {
	bound := min(interval, heartbeatBound)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-b.life.Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(b.life, bound)
		err := b.d.Call(ctx, "Browser.getVersion", nil, nil)
		cancel()
		switch {
		case err == nil:
		case b.life.Err() != nil:
			return
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
// (see Disconnected).
func (b *Browser) LostReason() string {
	ctx, cancel := context.WithTimeout(context.Background(), heartbeatBound)
	defer cancel()
	err := b.d.Call(ctx, "Browser.getVersion", nil, nil)
	if f := b.d.Classify(err); err != nil && f.Kind == Lost {
		return f.Reason
	}
	return ""
}
