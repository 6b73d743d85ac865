package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// What the link has shown. No wait in the engine assumes a local, idle
// browser: each is bounded by the caller's context, by an Options value,
// or by the round trips the connection has shown. The link learns them
// from calls the engine makes anyway and that Chrome's browser process
// answers at once, whatever its tabs do: the start's (Target.getTargets,
// the policies, Target.getTargetInfo), the heartbeat's and the probes'
// Browser.getVersion, and Target.closeTarget. A call that answers counts;
// one that fails or never answers tells nothing of the link. The healthy
// path sends nothing for it and notes nothing.

// linkMargin is how many of the link's slowest recent round trips an
// answer may take before its absence means something: a heartbeat's
// answer, a probe's, an event that trails a reply.
const linkMargin = 3

// linkSamples is how many recent round trips the link keeps: enough that
// one quick answer does not hide a slow link, few enough that a link that
// sped up is soon trusted again.
const linkSamples = 8

// link keeps the round trips of the browser process's last answers. A
// call's clock reads the slowest of them (rtt) without a lock.
type link struct {
	mu   sync.Mutex
	rtts [linkSamples]time.Duration
	n    int          // answers noted so far
	most atomic.Int64 // the slowest of rtts, a time.Duration
}

// note records one answer's round trip.
func (l *link) note(rtt time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rtts[l.n%linkSamples] = rtt
	l.n++
	var most time.Duration
	for _, d := range l.rtts {
		most = max(most, d)
	}
	l.most.Store(int64(most))
}

// rtt is the slowest of the recent round trips, zero before the first.
func (l *link) rtt() time.Duration { return time.Duration(l.most.Load()) }

// due is how long an answer of the browser may take, at least base (an
// Options value, or one derived from it): linkMargin of the link's slowest
// recent round trips when that is longer.
func (b *Browser) due(base time.Duration) time.Duration {
	return max(base, linkMargin*b.link.rtt())
}

// RoundTrip is the slowest of the link's recent round trips to the
// browser process, as the calls it answered have shown; zero before any.
func (b *Browser) RoundTrip() time.Duration { return b.link.rtt() }

// browserCall sends method on the browser session and notes the round
// trip of an answer, for calls the browser process answers at once.
func (b *Browser) browserCall(ctx context.Context, method string, params, result any) error {
	start := time.Now()
	err := b.d.Call(ctx, method, params, result)
	if err == nil {
		b.link.note(time.Since(start))
	}
	return err
}

// browserSession is the browser's session, noting the round trip of each
// answer: for the calls the browser process answers at once.
type browserSession struct{ b *Browser }

// Call is Browser.browserCall.
func (s browserSession) Call(ctx context.Context, method string, params, result any) error {
	return s.b.browserCall(ctx, method, params, result)
}
