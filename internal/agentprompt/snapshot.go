package agentprompt

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/tabguard/tabguard"
)

// refusedFrame is the Reason of a SkippedFrame the URL policy keeps the
// server out of.
const refusedFrame = "the server reads no frame at a URL it would not open"

// Snapshots takes the snapshots the servers answer and checks the actions
// they are given against the server's URL policy: no element of an iframe
// the policy refuses is listed or acted on, as no DOM of one is read. It
// remembers which frame each ref prefix ("f2" of "f2e7") named in a
// tab's snapshots, so a ref is checked against its frame's URL before the
// action. A zero Snapshots is not usable: call NewSnapshots.
type Snapshots struct {
	// reach returns nil when the server may read frame id of frames, and
	// otherwise the server's own error, which the caller words.
	reach func(frames []tabguard.FrameInfo, id string) error

	mu     sync.Mutex
	frames map[string]map[string]string // tab ID → ref prefix → frame ID
}

// NewSnapshots returns Snapshots under reach, the server's frame check
// (URLPolicy.CheckFrame with the server's error type).
func NewSnapshots(reach func(frames []tabguard.FrameInfo, id string) error) *Snapshots {
	return &Snapshots{reach: reach, frames: map[string]map[string]string{}}
}

// Take is w.Snapshot(ctx, opts) without the elements of the iframes the
// policy refuses: each such frame is named in Skipped instead, and Shown
// and Total leave its elements out. A snapshot of one such frame
// (opts.Frame) is the reach error, asked before the page is.
func (s *Snapshots) Take(ctx context.Context, w *tabguard.Watcher, opts tabguard.SnapshotOptions) (tabguard.Snapshot, error) {
	tab := string(w.TargetID())
	if opts.Frame != "" && opts.Frame != tab {
		if err := s.reach(w.Frames(), opts.Frame); err != nil {
			return tabguard.Snapshot{}, err
		}
	}
	snap, err := w.Snapshot(ctx, opts)
	if err != nil {
		return snap, err
	}
	frames := w.Frames()
	url := make(map[string]string, len(frames))
	for _, f := range frames {
		url[f.ID] = f.URL
	}
	refused := map[string]bool{}
	kept := snap.Elements[:0:0]
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range snap.Elements {
		if e.Frame == "" || e.Frame == tab {
			kept = append(kept, e)
			continue
		}
		// Every prefix is noted, a refused frame's too, so an action on
		// one of its refs meets the policy rather than an older frame's.
		s.note(tab, e.Ref, e.Frame)
		no, seen := refused[e.Frame]
		if !seen {
			no = s.reach(frames, e.Frame) != nil
			refused[e.Frame] = no
			if no {
				snap.Skipped = append(snap.Skipped, tabguard.SkippedFrame{ID: e.Frame, URL: url[e.Frame], Reason: refusedFrame})
			}
		}
		if !no {
			kept = append(kept, e)
		}
	}
	snap.Total -= len(snap.Elements) - len(kept)
	snap.Elements, snap.Shown = kept, len(kept)
	return snap, nil
}

// note remembers that ref, an element's ref in a tab, names frame. The
// caller holds s.mu.
func (s *Snapshots) note(tab, ref, frame string) {
	prefix, _, ok := strings.Cut(ref, "e")
	if !ok || prefix == "" {
		return
	}
	m := s.frames[tab]
	if m == nil {
		m = map[string]string{}
		s.frames[tab] = m
	}
	m[prefix] = frame
}

// Check returns nil when action a on w may go ahead under the policy: its
// Frame, or the frame of its Ref, is one the server reads. A ref of an
// iframe no snapshot of the tab listed, or of one the tab no longer has,
// is an ErrStaleRef, since the server cannot tell which frame it names.
func (s *Snapshots) Check(w *tabguard.Watcher, a tabguard.Action) error {
	frames := w.Frames()
	tab := string(w.TargetID())
	if a.Frame != "" && a.Frame != tab {
		if err := s.reach(frames, a.Frame); err != nil {
			return err
		}
	}
	prefix, _, ok := strings.Cut(a.Ref, "e")
	if !ok || prefix == "" {
		return nil // a main-frame ref, or one the watcher refuses as malformed
	}
	s.mu.Lock()
	frame, known := s.frames[tab][prefix]
	s.mu.Unlock()
	there := false
	for _, f := range frames {
		there = there || f.ID == frame
	}
	if !known || !there {
		return fmt.Errorf("%w: %s: the page navigated since the snapshot that gave it, or its frame went: "+
			"take a fresh snapshot with Watcher.Snapshot", tabguard.ErrStaleRef, a.Ref)
	}
	return s.reach(frames, frame)
}

// Forget drops what Snapshots remembers of tab, a tab closed.
func (s *Snapshots) Forget(tab string) {
	s.mu.Lock()
	delete(s.frames, tab)
	s.mu.Unlock()
}
