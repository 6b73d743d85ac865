package tabstate

import "strconv"

// Kind names an event's type, the alphabet of [Transitions]: one a type of
// [Event], except that FrameNavigated is two, a page and an error page
// committing, which move a tab to different phases.
type Kind uint8

// The kinds of event, one for each [Event] type.
const (
	// KindTargetCrashed is a [TargetCrashed].
	KindTargetCrashed Kind = iota + 1
	// KindReloadedAfterCrash is a [ReloadedAfterCrash].
	KindReloadedAfterCrash
	// KindNavigationStarted is a [NavigationStarted].
	KindNavigationStarted
	// KindFrameNavigated is a [FrameNavigated] that commits a page.
	KindFrameNavigated
	// KindErrorPageNavigated is a [FrameNavigated] with an UnreachableURL:
	// Chrome's error page committed in place of the page.
	KindErrorPageNavigated
	// KindNavigatedWithinDocument is a [NavigatedWithinDocument].
	KindNavigatedWithinDocument
	// KindStoppedLoading is a [StoppedLoading].
	KindStoppedLoading
	// KindLoadFired is a [LoadFired].
	KindLoadFired
	// KindLoadingFailed is a [LoadingFailed], cancelled or not.
	KindLoadingFailed
	// KindDialogOpening is a [DialogOpening].
	KindDialogOpening
	// KindDialogClosed is a [DialogClosed], or a dialog the owner closed
	// itself ([Tab.DialogHandled]).
	KindDialogClosed
	// KindPaused is a [Paused].
	KindPaused
	// KindResumed is a [Resumed].
	KindResumed
	// KindDetached is a [Detached].
	KindDetached
	// KindDiscarded is a [Discarded].
	KindDiscarded
	// KindDisconnected is a [Disconnected].
	KindDisconnected
)

// Kinds lists every kind of event, in the order of the Event types' docs.
func Kinds() []Kind {
	ks := make([]Kind, 0, KindDisconnected)
	for k := KindTargetCrashed; k <= KindDisconnected; k++ {
		ks = append(ks, k)
	}
	return ks
}

// KindOf returns the kind of e, or 0 for an Event of no type listed here
// (a nil one).
func KindOf(e Event) Kind {
	switch e := e.(type) {
	case TargetCrashed:
		return KindTargetCrashed
	case ReloadedAfterCrash:
		return KindReloadedAfterCrash
	case NavigationStarted:
		return KindNavigationStarted
	case FrameNavigated:
		if e.UnreachableURL != "" {
			return KindErrorPageNavigated
		}
		return KindFrameNavigated
	case NavigatedWithinDocument:
		return KindNavigatedWithinDocument
	case StoppedLoading:
		return KindStoppedLoading
	case LoadFired:
		return KindLoadFired
	case LoadingFailed:
		return KindLoadingFailed
	case DialogOpening:
		return KindDialogOpening
	case DialogClosed:
		return KindDialogClosed
	case Paused:
		return KindPaused
	case Resumed:
		return KindResumed
	case Detached:
		return KindDetached
	case Discarded:
		return KindDiscarded
	case Disconnected:
		return KindDisconnected
	}
	return 0
}

// String returns the kind's name without its prefix, such as "LoadFired".
func (k Kind) String() string {
	switch k {
	case KindTargetCrashed:
		return "TargetCrashed"
	case KindReloadedAfterCrash:
		return "ReloadedAfterCrash"
	case KindNavigationStarted:
		return "NavigationStarted"
	case KindFrameNavigated:
		return "FrameNavigated"
	case KindErrorPageNavigated:
		return "ErrorPageNavigated"
	case KindNavigatedWithinDocument:
		return "NavigatedWithinDocument"
	case KindStoppedLoading:
		return "StoppedLoading"
	case KindLoadFired:
		return "LoadFired"
	case KindLoadingFailed:
		return "LoadingFailed"
	case KindDialogOpening:
		return "DialogOpening"
	case KindDialogClosed:
		return "DialogClosed"
	case KindPaused:
		return "Paused"
	case KindResumed:
		return "Resumed"
	case KindDetached:
		return "Detached"
	case KindDiscarded:
		return "Discarded"
	case KindDisconnected:
		return "Disconnected"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}
