package otelguard

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// otherError is error.type for an error that matches no sentinel, as
// OpenTelemetry's conventions name it.
const otherError = "_OTHER"

// errorTypes names each sentinel a call's Reason can be.
var errorTypes = map[error]string{
	tabstate.ErrTabCrashed:         "ErrTabCrashed",
	tabstate.ErrNoDocument:         "ErrNoDocument",
	tabstate.ErrTabClosed:          "ErrTabClosed",
	tabstate.ErrTabDiscarded:       "ErrTabDiscarded",
	tabstate.ErrBrowserGone:        "ErrBrowserGone",
	tabstate.ErrDialogOpen:         "ErrDialogOpen",
	tabstate.ErrPaused:             "ErrPaused",
	tabstate.ErrNavigated:          "ErrNavigated",
	tabstate.ErrTerminated:         "ErrTerminated",
	tabstate.ErrFrameCrashed:       "ErrFrameCrashed",
	tabstate.ErrFrameDetached:      "ErrFrameDetached",
	tabstate.ErrConnectionDropped:  "ErrConnectionDropped",
	tabstate.ErrSignInRequired:     "ErrSignInRequired",
	tabstate.ErrCertificate:        "ErrCertificate",
	tabstate.ErrClientCertificate:  "ErrClientCertificate",
	tabstate.ErrDownload:           "ErrDownload",
	tabstate.ErrCredentialsRefused: "ErrCredentialsRefused",
	tabstate.ErrFileChooser:        "ErrFileChooser",
	tabstate.ErrLocalNetworkDenied: "ErrLocalNetworkDenied",
	tabstate.ErrEvalTimeout:        "ErrEvalTimeout",
	tabstate.ErrInvalidArgument:    "ErrInvalidArgument",
	tabstate.ErrWatcherClosed:      "ErrWatcherClosed",
	tabstate.ErrSnapshotGone:       "ErrSnapshotGone",
	tabstate.ErrNoMatch:            "ErrNoMatch",
	tabstate.ErrNotActionable:      "ErrNotActionable",
	tabstate.ErrStaleRef:           "ErrStaleRef",
	tabstate.ErrURLBlocked:         "ErrURLBlocked",
	tabstate.ErrCaptureTooLarge:    "ErrCaptureTooLarge",
	tabstate.ErrNoDialog:           "ErrNoDialog",
	context.Canceled:               "context.Canceled",
	context.DeadlineExceeded:       "context.DeadlineExceeded",
}

// errorType is error.type for reason, a call's sentinel or nil.
func errorType(reason error) string {
	if name, ok := errorTypes[reason]; ok {
		return name
	}
	return otherError
}

// crashStatuses are the termination statuses Chrome reports a crash with.
var crashStatuses = map[string]bool{"crashed": true, "killed": true, "oom": true, "abnormal": true}

// crashStatus is AttrCrashStatus for Chrome's status: one of a small set,
// so the metric's streams stay bounded.
func crashStatus(status string) string {
	switch {
	case status == "":
		return "unknown"
	case crashStatuses[status]:
		return status
	}
	return otherError
}
