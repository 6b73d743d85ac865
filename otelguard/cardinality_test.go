package otelguard_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestCardinalityBounded holds that no metric stream grows with the pages
// visited: 1,000 tabs on 1,000 distinct URLs, hosts and ports, each with
// every way a call can end and every change of a tab, make no more
// streams than the first ten do; and no metric names a URL or a target.
func TestCardinalityBounded(t *testing.T) {
	s := newSDK(t)
	ends := []tabtrace.Done{
		{Outcome: tabtrace.OutcomeOK},
		{Outcome: tabtrace.OutcomeRefused, Reason: tabstate.ErrTabCrashed, Refused: tabtrace.RefusedInFlight},
		{Outcome: tabtrace.OutcomeRefused, Reason: tabstate.ErrNoDocument, Refused: tabtrace.RefusedAfterBarrier},
		{Outcome: tabtrace.OutcomeRefused, Reason: tabstate.ErrTabClosed, Refused: tabtrace.RefusedFromState},
		{Outcome: tabtrace.OutcomeTimedOut, Reason: tabstate.ErrEvalTimeout, Cause: tabstate.TimeoutLoading},
		{Outcome: tabtrace.OutcomeCanceled, Reason: context.Canceled},
		{Outcome: tabtrace.OutcomeFailed, Reason: tabstate.ErrInvalidArgument},
		{Outcome: tabtrace.OutcomeFailed}, // a JavaScript exception: no sentinel
	}
	drive := func(from, to int) {
		for i := from; i < to; i++ {
			id := fmt.Sprintf("TARGET%04d", i)
			url := fmt.Sprintf("http://127.0.%d.%d:%d/page/%d?token=%d", i/250, i%250+1, 20000+i, i, i)
			s.trace.TabChanged(tabtrace.Change{Kind: tabtrace.TabOpened, TargetID: id, URL: url})
			s.trace.TabChanged(tabtrace.Change{Kind: tabtrace.TabWatched, TargetID: id, URL: url})
			for _, op := range []tabtrace.Op{tabtrace.OpEval, tabtrace.OpNavigate, tabtrace.Op("Custom" + id)} {
				for _, d := range ends {
					c := tabtrace.Call{Op: op, TargetID: id, URL: url}
					ctx := s.trace.CallStart(context.Background(), c)
					if d.Outcome != tabtrace.OutcomeOK && d.Reason == nil {
						d.Err = errors.New("script threw at " + url)
					}
					d.Duration = time.Duration(i) * time.Millisecond
					s.trace.CallDone(ctx, c, d)
				}
			}
			s.trace.TabChanged(tabtrace.Change{Kind: tabtrace.TabCrashed, TargetID: id, URL: url, Detail: []string{"oom", "crashed", "status " + id}[i%3]})
			s.trace.ScriptTerminated(tabtrace.Termination{TargetID: id, URL: url})
			s.trace.TabChanged(tabtrace.Change{Kind: tabtrace.TabUnwatched, TargetID: id, URL: url})
			s.trace.TabChanged(tabtrace.Change{Kind: tabtrace.TabClosed, TargetID: id, URL: url})
		}
	}
	drive(0, 10)
	first := s.streams(t)
	drive(10, 1000)
	assert.Equal(t, first, s.streams(t), "streams after 10 tabs, then after 1,000")
	assert.Len(t, s.spans.Ended(), 1000*3*len(ends))
	noURLs(t, s)
}

// TestCardinalityOnABrowser holds the same on a real browser, through a
// watcher: tabs opened on distinct URLs add no stream.
func TestCardinalityOnABrowser(t *testing.T) {
	s := newSDK(t)
	srv := pages(t)
	ctx := testbrowser.Context(t, 60*time.Second)
	bw, err := tabguard.WatchBrowser(testbrowser.Shared(t).Browser, &tabguard.Options{Trace: s.trace})
	require.NoError(t, err)
	defer bw.Close()
	visit := func(from, to int) {
		for i := from; i < to; i++ {
			w, err := bw.Open(ctx, fmt.Sprintf("%s/page/%d?token=%d", srv.URL, i, i))
			require.NoError(t, err)
			_, err = w.Eval(ctx, `() => location.href`)
			require.NoError(t, err)
			_, err = w.Eval(ctx, `() => { throw new Error(location.href) }`)
			require.Error(t, err)
			require.NoError(t, w.CloseTab(ctx))
		}
	}
	visit(0, 2)
	first := s.streams(t)
	visit(2, 12)
	assert.Equal(t, first, s.streams(t), "streams after 2 tabs, then after 12")
	noURLs(t, s)
}

// noURLs holds that no metric attribute names a page or a target.
func noURLs(t *testing.T, s *sdk) {
	t.Helper()
	for name, m := range s.collect(t) {
		var sets []string
		switch d := m.Data.(type) {
		case metricdata.Sum[int64]:
			for _, p := range d.DataPoints {
				sets = append(sets, p.Attributes.Encoded(nil))
			}
		case metricdata.Histogram[float64]:
			for _, p := range d.DataPoints {
				sets = append(sets, p.Attributes.Encoded(nil))
			}
		}
		for _, set := range sets {
			assert.False(t, strings.Contains(set, "127.0.") || strings.Contains(set, "TARGET") || strings.Contains(set, "token"),
				"%s has a stream %s", name, set)
		}
	}
}
