package cdpws

import (
	"errors"
	"io"
	"net"
	"reflect"
	"syscall"

	"github.com/tabguard/tabguard/tabstate"
)

// LostReason reports whether err means the connection to the browser is
// lost, whatever transport the driver runs on, and why: the reason of a
// [*ConnectionError], the detail of an ErrBrowserGone refusal, or what a
// reset, a broken pipe or an end of stream says. The reason may be empty
// when the error does not tell.
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
	case closeFrame(err):
		return err.Error(), true
	}
	return "", false
}

// closeFrame reports whether err, or an error it wraps, is a WebSocket
// library's error for a close frame the browser's end sent: a struct
// named CloseError with a Code, as github.com/coder/websocket and
// github.com/gorilla/websocket have. A transport of a program's own hands
// it to the calls in flight as the connection ends, and its text names
// the close code and reason ("status = StatusInternalError and reason =
// \"session timeout\""), which the refusal keeps.
func closeFrame(err error) bool {
	for err != nil {
		t := reflect.TypeOf(err)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Struct && t.Name() == "CloseError" {
			if _, ok := t.FieldByName("Code"); ok {
				return true
			}
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}
