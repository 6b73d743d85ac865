package otelguard

import "go.opentelemetry.io/otel/attribute"

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/tabguard/tabguard/otelguard"

// The attributes. Each has a small, fixed set of values, but for
// AttrTargetID and AttrOrigin, which only spans carry.
const (
	// AttrCall names the guarded call: "Eval", "DOM", "ReadDOM", "Do",
	// "Navigate", "Reload", "HandleDialog", "Wait", "CloseTab",
	// "Screenshot", "PDF", "Recover", "Cookies", "DoBrowserSide", "Guard".
	AttrCall = attribute.Key("tabguard.call")
	// AttrOutcome is how the call ended: "ok", "refused", "timed_out",
	// "canceled" or "failed".
	AttrOutcome = attribute.Key("tabguard.outcome")
	// AttrErrorType is OpenTelemetry's error.type: the name of the
	// sentinel the error matches, such as "ErrTabCrashed",
	// "ErrEvalTimeout" or "context.Canceled", or "_OTHER".
	AttrErrorType = attribute.Key("error.type")
	// AttrRefusal says how a refused call learned it: "state" (from the
	// events alone), "after_barrier" (once every event Chrome sent was
	// applied) or "in_flight" (cut short while it ran).
	AttrRefusal = attribute.Key("tabguard.refusal")
	// AttrTimeoutCause is what the tab was doing when the call timed out,
	// such as "TimeoutBusyScript" or "TimeoutLoading".
	AttrTimeoutCause = attribute.Key("tabguard.timeout.cause")
	// AttrCrashStatus is Chrome's status of a crash: "crashed", "killed",
	// "oom", "abnormal", "unknown" or "_OTHER".
	AttrCrashStatus = attribute.Key("tabguard.crash.status")
	// AttrChange is the kind of a tab's change: "opened", "crashed",
	// "dialog_opened", "closed", "discarded", "watched", "unwatched",
	// "browser_gone", "connection_dropped", "connection_resumed".
	AttrChange = attribute.Key("tabguard.change")
	// AttrTargetID is the tab's CDP target, on spans only.
	AttrTargetID = attribute.Key("tabguard.target.id")
	// AttrOrigin is the origin of the tab's page as the call started,
	// scheme://host:port, never the full URL; on spans only.
	AttrOrigin = attribute.Key("tabguard.page.origin")
)

// The metrics.
const (
	// MetricCallDuration is a histogram of the guarded calls' durations,
	// in seconds, by AttrCall, AttrOutcome and AttrErrorType.
	MetricCallDuration = "tabguard.call.duration"
	// MetricRefusals counts refused calls by AttrCall, AttrErrorType and
	// AttrRefusal.
	MetricRefusals = "tabguard.call.refusals"
	// MetricTimeouts counts calls that timed out by AttrCall and
	// AttrTimeoutCause.
	MetricTimeouts = "tabguard.call.timeouts"
	// MetricCrashes counts renderer crashes by AttrCrashStatus.
	MetricCrashes = "tabguard.tab.crashes"
	// MetricChanges counts the changes of tabs by AttrChange.
	MetricChanges = "tabguard.tab.changes"
	// MetricTabsWatched is how many tabs watchers follow now.
	MetricTabsWatched = "tabguard.tabs.watched"
	// MetricTerminations counts the scripts stopped after a timeout
	// (Options.TerminateOnTimeout), by AttrOutcome ("ok" or "failed").
	MetricTerminations = "tabguard.script.terminations"
	// MetricHeartbeatMisses counts heartbeats that went unanswered.
	MetricHeartbeatMisses = "tabguard.heartbeat.misses"
)

// durationBuckets are the histogram's bounds, in seconds, as
// OpenTelemetry's HTTP conventions give them, to a minute: a call's
// deadline is 30 s by default.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60}
