package tabguard

import (
	"context"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Sync returns once every event Chrome sent before it was called has been
// applied to the watchers.
//
// Events reach the watchers through rod's fan-out, goroutine to goroutine,
// while replies go straight to their caller: a caller's next call can
// overtake the events its last call caused. Measured on Chromium 156,
// Page.javascriptDialogClosed arrives 1-4 ms before the reply to
// Page.handleJavaScriptDialog, and Inspector.targetReloadedAfterCrash and
// Page.frameStartedNavigating 1-14 ms before the reply to Page.reload or
// Page.navigate; yet a watcher that only waited for them refused the next
// eval in 3-18% of tries. So before a refusal that a recovery may have made
// stale, the watcher sends a marker through the same stream:
// Target.attachToBrowserTarget makes Chrome send Target.attachedToTarget
// before its reply (measured), on the one connection, so once the event
// loop has seen that event it has applied everything before it. The marker
// session is detached again in the background. ctx bounds the sync: the
// engine gives it its patience, or more as the link shows.
func (d syncDriver) Sync(ctx context.Context) error {
	d.markers.begin()
	defer d.markers.end()
	res, err := proto.TargetAttachToBrowserTarget{}.Call(d.browser.Context(ctx))
	if err != nil {
		return err
	}
	d.detachLater(res.SessionID)
	select {
	case <-d.markers.wait(res.SessionID):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// detachLater ends a marker session without holding up the caller.
func (d *driver) detachLater(id proto.TargetSessionID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return // the browser connection outlives us; the session is harmless
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), detachTimeout)
		defer cancel()
		_ = proto.TargetDetachFromTarget{SessionID: id}.Call(d.browser.Context(ctx))
	}()
}

// markers pairs each sync with the attach event of its marker session. The
// event may be applied before or after the sync learns the session ID from
// the reply, so whichever comes first makes the channel.
type markers struct {
	mu      sync.Mutex
	active  int // syncs under way; attach events are only decoded then
	entries map[proto.TargetSessionID]chan struct{}
}

func (m *markers) begin() {
	m.mu.Lock()
	m.active++
	m.mu.Unlock()
}

// end forgets the markers of finished syncs once none is under way, with
// any attach event of another client's that was kept meanwhile.
func (m *markers) end() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.active--; m.active == 0 {
		m.entries = nil
	}
}

// entry returns the channel for id, making it if needed. m.mu must be held.
func (m *markers) entry(id proto.TargetSessionID) chan struct{} {
	if m.entries == nil {
		m.entries = map[proto.TargetSessionID]chan struct{}{}
	}
	ch, ok := m.entries[id]
	if !ok {
		ch = make(chan struct{})
		m.entries[id] = ch
	}
	return ch
}

// wait returns a channel closed once the attach event of id was applied.
func (m *markers) wait(id proto.TargetSessionID) <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entry(id)
}

// seen notes a Target.attachedToTarget event of the browser target, while a
// sync is under way.
func (m *markers) seen(msg *rod.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.active == 0 {
		return
	}
	var e proto.TargetAttachedToTarget
	if !msg.Load(&e) || e.TargetInfo == nil || e.TargetInfo.Type != proto.TargetTargetInfoTypeBrowser {
		return
	}
	ch := m.entry(e.SessionID)
	select {
	case <-ch:
	default:
		close(ch)
	}
}
