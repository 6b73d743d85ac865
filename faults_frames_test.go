package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/ysmood/gson"
)

// frameFaults are the faults of a tab's iframes, through EvalFrame. The
// tab itself needs no recovery: its own eval answers throughout.
func frameFaults() map[string]rodFault {
	faults := map[string]rodFault{
		"iframe navigates during eval":            {fault: frameMoved},
		"iframe moves out of process during eval": {fault: frameMoved},
		"iframe renderer crashed": {fault: func(t *testing.T, f *fixture) outcome {
			id := f.outOfProcess(t).ID
			crashFrame(t, f.page, id) // returns once Chrome has reported it
			return f.evalFrame(t, id, `() => 1`)
		}},
		"iframe renderer crashes during eval": {fault: func(t *testing.T, f *fixture) outcome {
			wait := f.evalFrameAsync(t, f.outOfProcess(t).ID, `() => new Promise(() => {})`)
			at := time.Now()
			crashFrame(t, f.page, f.frame(t, "").ID)
			return wait(at)
		}},
	}
	for _, mode := range []string{"", ", site isolation"} {
		faults["iframe of another site"+mode] = rodFault{fault: func(t *testing.T, f *fixture) outcome {
			// Once it has a document: a loaded machine can take longer than
			// the row's eval timeout to start its renderer, and the row
			// holds the eval's answer, not the load's time.
			id := f.frame(t, "localhost").ID
			eventually(t, "the iframe's document", func() bool {
				for _, fr := range f.w.Frames() {
					if fr.ID == id {
						return !fr.Loading
					}
				}
				return false
			})
			return f.evalFrame(t, id, faultrows.TitleWhenLoaded)
		}}
		faults["iframe lazy, out of view"+mode] = rodFault{fault: firstFrame}
		faults["iframe server never answers"+mode] = rodFault{fault: firstFrame}
		faults["iframe load refused"+mode] = rodFault{fault: func(t *testing.T, f *fixture) outcome {
			return firstFrame(t, f) // at once: the call waits for the frame's load, which fails
		}}
		faults["iframe removed during eval"+mode] = rodFault{fault: func(t *testing.T, f *fixture) outcome {
			wait := f.evalFrameAsync(t, f.frame(t, faultrows.FrameInner).ID, `() => new Promise(() => {})`)
			at := time.Now()
			f.runJS(t, `document.getElementById("a").remove()`)
			return wait(at)
		}}
		faults["iframe reloads every 50 ms"+mode] = rodFault{fault: frameReloads}
	}
	return faults
}

// frame returns the first iframe f's watcher lists whose URL holds part,
// once one is listed so.
func (f *fixture) frame(t *testing.T, part string) tabguard.FrameInfo {
	t.Helper()
	var found tabguard.FrameInfo
	eventually(t, "an iframe at "+part, func() bool {
		for _, fr := range f.w.Frames() {
			if strings.Contains(fr.URL, part) {
				found = fr
				return true
			}
		}
		return false
	})
	return found
}

// outOfProcess returns the tab's first iframe once it runs in a process
// of its own, with its document there.
func (f *fixture) outOfProcess(t *testing.T) tabguard.FrameInfo {
	t.Helper()
	var found tabguard.FrameInfo
	eventually(t, "an out-of-process iframe", func() bool {
		fs := f.w.Frames()
		if len(fs) > 0 && fs[0].OutOfProcess && !fs[0].Loading {
			found = fs[0]
			return true
		}
		return false
	})
	return found
}

// evalFrame runs js in frame id and times it from its start.
func (f *fixture) evalFrame(t *testing.T, id, js string) outcome {
	t.Helper()
	start := time.Now()
	res, err := f.w.EvalFrame(testbrowser.Context(t, 30*time.Second), id, js)
	return outcome{res, err, time.Since(start)}
}

// evalFrameAsync is evalAsync in frame id.
func (f *fixture) evalFrameAsync(t *testing.T, id, js string) func(from time.Time) outcome {
	t.Helper()
	return inFlight(t, func(ctx context.Context) (*proto.RuntimeRemoteObject, error) { return f.w.EvalFrame(ctx, id, js) })
}

// firstFrame evaluates in the tab's only iframe.
func firstFrame(t *testing.T, f *fixture) outcome {
	return f.evalFrame(t, f.frame(t, "").ID, `() => location.href`)
}

// frameMoved points the iframe at another site while an eval waits in it.
func frameMoved(t *testing.T, f *fixture) outcome {
	id := f.frame(t, faultrows.FrameInner).ID
	wait := f.evalFrameAsync(t, id, `() => new Promise(() => {})`)
	at := time.Now()
	f.runJS(t, `document.getElementById("a").src = "`+strings.Replace(f.srv.URL, "127.0.0.1", "localhost", 1)+faultrows.FrameInner+`moved"`)
	return wait(at)
}

// frameReloads evaluates 50 times in an iframe that reloads itself every
// 50 ms and tells how the evals ended: each answers, or says the frame
// navigated.
func frameReloads(t *testing.T, f *fixture) outcome {
	id := f.frame(t, "/reload50").ID
	start := time.Now()
	var answered, navigated, other int
	for i := 0; i < 50; i++ {
		_, err := f.w.EvalFrame(testbrowser.Context(t, 10*time.Second), id, `() => innerVar`)
		switch {
		case err == nil:
			answered++
		case errors.Is(err, tabguard.ErrNavigated):
			navigated++
		default:
			other++
			t.Logf("eval %d: %v", i, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	msg := fmt.Sprintf("answered %d, navigated %d, other errors %d", answered, navigated, other)
	return outcome{res: &proto.RuntimeRemoteObject{Value: gson.New(msg)}, elapsed: time.Since(start)}
}
