package engine

import (
	"context"
	"slices"
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
// one that fails or never answers tells nothing of the link. Of the calls
// a start sends together, only the first answer counts: the others queued
// behind it, in the browser and in the driver, which a loaded machine
// makes long. The healthy path sends nothing for it and notes nothing.
//
// A bound whose end gives up on the browser (the heartbeat's) takes the
// slowest of the recent round trips. A wait that proves something by what
// did not come (the probes' window, the graces) takes the fastest: that is
// the link itself, which no answer beats. A loaded machine makes answers
// slower than the link, by hundreds of milliseconds under a load average of
// 20 on 2 cores, and by as much in a renderer as in the browser process:
// the engine's patience (Config.Patience) is what covers it.

// linkMargin is how many of the link's round trips an answer may take
// before its absence means something: a heartbeat's answer, a probe's, an
// event that trails a reply.
const linkMargin = 3

// linkSamples is how many recent round trips the link keeps: a link that
// changes (a pool that moves the session, a new route) is followed within
// that many answers, and one slow answer lengthens a heartbeat's bound for
// no longer.
const linkSamples = 8

// link keeps the round trips of the browser process's last answers. A
// call's clock reads them without a lock.
type link struct {
	mu    sync.Mutex
	rtts  [linkSamples]time.Duration
	n     int          // answers noted so far
	least atomic.Int64 // the fastest of the rtts noted, a time.Duration
	most  atomic.Int64 // the slowest of them
}

// note records one answer's round trip.
func (l *link) note(rtt time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rtts[l.n%linkSamples] = rtt
	l.n++
	recent := l.rtts[:min(l.n, linkSamples)]
	l.least.Store(int64(slices.Min(recent)))
	l.most.Store(int64(slices.Max(recent)))
}

// rtt is the fastest of the recent round trips, zero before the first.
func (l *link) rtt() time.Duration { return time.Duration(l.least.Load()) }

// slowest is the slowest of the recent round trips, zero before the first.
func (l *link) slowest() time.Duration { return time.Duration(l.most.Load()) }

// due is how long a wait that proves something by what did not come
// lasts, at least base (an Options value, or one derived from it):
// linkMargin of the link's round trip when that is longer.
func (b *Browser) due(base time.Duration) time.Duration {
	return max(base, linkMargin*b.link.rtt())
}

// RoundTrip is the fastest and the slowest of the link's recent round
// trips to the browser process, as the calls it answered have shown; zero
// before any.
func (b *Browser) RoundTrip() (fastest, slowest time.Duration) {
	return b.link.rtt(), b.link.slowest()
}

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
// answer: for the calls the browser process answers at once. A start's
// calls on it note only the first answer of the start (starter.call).
type browserSession struct{ b *Browser }

// Call is Browser.browserCall.
func (s browserSession) Call(ctx context.Context, method string, params, result any) error {
	return s.b.browserCall(ctx, method, params, result)
}
