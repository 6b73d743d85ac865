package cdpws

import (
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/tabguard/tabguard/tabstate"
)

// LostReason reports whether err means the connection to the browser is
// lost, whatever transport the driver runs on, and why: the reason of a
// [*ConnectionError], the detail of an ErrBrowserGone refusal, or what a
// reset, a broken pipe or an end of stream says. The reason may be empty
// when the error does not tell. An error of another type, as a transport
// of a program's own gives the calls in flight, is not read here: the
// engine tells the loss by the connection's end it sees.
func LostReason(err error) (reason string, lost bool) {
	var ce *ConnectionError
	var be *tabstate.BlockedError
	switch {
	case err == nil:
		return "", false
	case errors.As(err, &ce):
		return ce.Reason, true
	case errors.As(err, &be) && be.Reason == tabstate.ErrBrowserGone:
		return be.Detail, true
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset", true
	case errors.Is(err, syscall.EPIPE):
		return "connection broken", true
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.Is(err, tabstate.ErrBrowserGone):
		return "", true
	}
	return "", false
}
