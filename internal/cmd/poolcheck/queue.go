package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// queueWait is how long the queued Connect may wait.
const queueWait = 3 * time.Second

// queueRow fills the pool's one slot and lets a second Connect queue until
// its context ends. Then it closes the first session, waits for the pool
// to run and queue nothing, and connects again. browserless keeps the
// queued request in its queue after its socket closed, and drops it when
// its turn comes, finding the socket closed; had the socket stayed open,
// the queued request would take the slot for the whole session TIMEOUT
// and the last Connect would be queued behind it.
func queueRow(ctx context.Context, p *pool, pageURL string) row {
	r := row{name: fmt.Sprintf("full pool (`CONCURRENT=%d QUEUED=%d`): a second `Connect` with a %v context; then the first session closes and a third `Connect`",
		p.cfg.concurrent, p.cfg.queued, queueWait)}
	first, err := openSession(ctx, p, pageURL, nil)
	if err != nil {
		return r.miss("the first session: %v", err)
	}
	defer first.close()
	qctx, cancel := context.WithTimeout(ctx, queueWait)
	defer cancel()
	start := time.Now()
	b, qerr := tabguard.Connect(qctx, p.url)
	queued := time.Since(start)
	if qerr == nil {
		closeBrowser(b)
		return r.miss("the second Connect was admitted while the first session held the only slot")
	}
	r.returned = code(qerr)
	r.took = fmt.Sprintf("%s (its deadline: %s)", dur(queued), dur(queueWait))
	switch {
	case !errors.Is(qerr, context.DeadlineExceeded):
		return r.miss("the queued Connect returned %v, want context.DeadlineExceeded", qerr)
	case queued < queueWait || queued > queueWait+500*time.Millisecond:
		return r.miss("the queued Connect returned after %s, want at its %s deadline", dur(queued), dur(queueWait))
	case strings.Contains(qerr.Error(), p.token):
		return r.miss("the error shows the pool's token")
	}
	before, err := p.pressure(ctx)
	if err != nil {
		return r.miss("%v", err)
	}
	first.close()
	start = time.Now()
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.drained(dctx); err != nil {
		return r.miss("after the first session closed: %v", err)
	}
	drained := time.Since(start)
	start = time.Now()
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	b, cerr := tabguard.Connect(cctx, p.url)
	admitted := time.Since(start)
	if cerr == nil {
		_, cerr = proto.BrowserGetVersion{}.Call(b.Context(cctx))
		closeBrowser(b)
	}
	r.returned += fmt.Sprintf(" (browserless's `/pressure` then: running %d, queued %d); once the first session closed, the pool ran and queued nothing, ",
		before.Running, before.Queued)
	r.took += fmt.Sprintf("; the pool empty %s after the first session closed; the new `Connect` %s", dur(drained), dur(admitted))
	if cerr != nil {
		r.returned += "and a new `Connect` gave " + code(cerr)
		return r.miss("the Connect after the first session closed: %v", cerr)
	}
	r.returned += "and a new `Connect` succeeded"
	return r
}
