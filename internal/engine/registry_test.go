package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
)

// A consumer that falls behind holds nothing up: a full sink drops the
// changes, and the next change it takes counts them, and only them. The
// browser row is the root package's TestBrowserWatcherSlowConsumer.
func TestChangesCountWhatTheyDrop(t *testing.T) {
	const room, opened = 4, 10
	sink := engine.Chan[engine.Change]{C: make(chan engine.Change, room), Convert: func(c engine.Change) engine.Change { return c }}
	fx := setup(t, enginetest.EventsFirst, engine.Config{Sink: sink})
	for len(sink.C) > 0 { // what the start reported
		<-sink.C
	}
	next := func() engine.Change {
		t.Helper()
		select {
		case c := <-sink.C:
			return c
		case <-time.After(10 * time.Second):
			require.FailNow(t, "no change")
			return engine.Change{}
		}
	}
	for i := range opened {
		fx.f.Push(func(b *engine.Browser) {
			b.TargetCreated(engine.TargetInfo{TargetID: fmt.Sprint("N", i), Type: "page", URL: pageURL})
		})
	}
	var got []string
	for range room {
		c := next()
		got = append(got, fmt.Sprint(c.Kind, " ", c.Tab.TargetID, " missed=", c.Missed))
	}
	assert.Equal(t, []string{"TabOpened N0 missed=0", "TabOpened N1 missed=0", "TabOpened N2 missed=0", "TabOpened N3 missed=0"}, got)
	fx.f.Push(func(b *engine.Browser) { b.TargetDestroyed("N9") })
	c := next()
	assert.Equal(t, engine.TabClosed, c.Kind)
	assert.Equal(t, opened-room, c.Missed, "the changes dropped before it")
	fx.f.Push(func(b *engine.Browser) { b.TargetDestroyed("N8") })
	assert.Equal(t, 0, next().Missed, "counted once")
}
