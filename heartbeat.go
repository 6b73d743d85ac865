package tabguard

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// heartbeatBound is how long a heartbeat waits for its answer, at most:
// Chrome answers Browser.getVersion from its browser process in well under
// a millisecond, whatever its tabs do.
const heartbeatBound = time.Second

// heartbeat sends Browser.getVersion every interval until ctx ends. A
// heartbeat unanswered within its bound (the interval, at most
// heartbeatBound) means the connection went silent, as a proxy that stops
// forwarding but keeps both sockets open leaves it, and every watcher of
// the browser then fails with ErrBrowserGone, calls in flight included. The
// calls also count as traffic for a pool that closes idle connections.
func (bw *BrowserWatcher) heartbeat(ctx context.Context, interval time.Duration) {
	bound := min(interval, heartbeatBound)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		hctx, cancel := context.WithTimeout(ctx, bound)
		_, err := proto.BrowserGetVersion{}.Call(bw.browser.Context(hctx))
		cancel()
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			bw.disconnected("no answer from the browser for " + bound.String())
			return
		default:
			bw.disconnected(goneReason(err))
			return
		}
	}
}

// lostReason asks the browser something once its event stream ended, to
// learn why from the error the connection gives every call after its end.
func (bw *BrowserWatcher) lostReason() string {
	ctx, cancel := context.WithTimeout(context.Background(), heartbeatBound)
	defer cancel()
	_, err := proto.BrowserGetVersion{}.Call(bw.browser.Context(ctx))
	if err == nil || !gone(err) {
		return "the DevTools connection closed"
	}
	return goneReason(err)
}

// gone reports whether err means the connection to the browser is lost.
func gone(err error) bool {
	return errors.Is(err, ErrBrowserGone) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// goneReason says why, for an error gone accepts.
func goneReason(err error) string {
	var ce *ConnectionError
	var be *BlockedError
	switch {
	case errors.As(err, &ce):
		return ce.Reason
	case errors.As(err, &be):
		return be.Detail
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EPIPE):
		return "connection broken"
	}
	return "the DevTools connection closed"
}
