package chromedpguard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// frameFaults are the faults of a tab's iframes, through EvalFrame. The
// tab itself needs no recovery: its own eval answers throughout.
func frameFaults() map[string]cdpFault {
	faults := map[string]cdpFault{
		"iframe navigates during eval":            {fault: frameMoved},
		"iframe moves out of process during eval": {fault: frameMoved},
		"iframe renderer crashed": {fault: func(t *testing.T, f *fixture) outcome {
			id := f.outOfProcess(t).ID
			crashFrame(t, f.browser, id) // returns once Chrome has reported it
			return f.evalFrame(t, id, `() => 1`)
		}},
		"iframe renderer crashes during eval": {fault: func(t *testing.T, f *fixture) outcome {
			wait := f.evalFrameAsync(t, f.outOfProcess(t).ID, `() => new Promise(() => {})`)
			at := time.Now()
			crashFrame(t, f.browser, f.frame(t, "").ID)
			return wait(at)
		}},
	}
	for _, mode := range []string{"", ", site isolation"} {
		faults["iframe of another site"+mode] = cdpFault{fault: func(t *testing.T, f *fixture) outcome {
			return f.evalFrame(t, f.frame(t, "localhost").ID, faultrows.TitleWhenLoaded)
		}}
		faults["iframe lazy, out of view"+mode] = cdpFault{fault: firstFrame}
		faults["iframe server never answers"+mode] = cdpFault{fault: firstFrame}
		faults["iframe load refused"+mode] = cdpFault{fault: func(t *testing.T, f *fixture) outcome {
			return firstFrame(t, f) // at once: the call waits for the frame's load, which fails
		}}
		faults["iframe removed during eval"+mode] = cdpFault{fault: func(t *testing.T, f *fixture) outcome {
			wait := f.evalFrameAsync(t, f.frame(t, faultrows.FrameInner).ID, `() => new Promise(() => {})`)
			at := time.Now()
			f.runJS(t, `document.getElementById("a").remove()`)
			return wait(at)
		}}
		faults["iframe reloads every 50 ms"+mode] = cdpFault{fault: frameReloads}
	}
	return faults
}

// frame returns the first iframe f's watcher lists whose URL holds part,
// once one is listed so.
func (f *fixture) frame(t *testing.T, part string) chromedpguard.FrameInfo {
	t.Helper()
	var found chromedpguard.FrameInfo
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
func (f *fixture) outOfProcess(t *testing.T) chromedpguard.FrameInfo {
	t.Helper()
	var found chromedpguard.FrameInfo
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
	res, err := f.w.EvalFrame(within(t, 30*time.Second), id, js)
	return outcome{res, err, time.Since(start)}
}

// evalFrameAsync is evalAsync in frame id.
func (f *fixture) evalFrameAsync(t *testing.T, id, js string) func(from time.Time) outcome {
	t.Helper()
	type answer struct {
		res *runtime.RemoteObject
		err error
		at  time.Time
	}
	done := make(chan answer, 1)
	go func() {
		res, err := f.w.EvalFrame(within(t, 30*time.Second), id, js)
		done <- answer{res, err, time.Now()}
	}()
	time.Sleep(200 * time.Millisecond) // let the eval reach the renderer
	return func(from time.Time) outcome {
		select {
		case a := <-done:
			return outcome{a.res, a.err, a.at.Sub(from)}
		case <-time.After(30 * time.Second):
			t.Fatal("eval in the frame still in flight after 30s")
			return outcome{}
		}
	}
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
	id := f.frame(t, faultrows.FramesPrefix+"reload50").ID
	start := time.Now()
	var answered, navigated, other int
	for i := 0; i < 50; i++ {
		_, err := f.w.EvalFrame(within(t, 10*time.Second), id, `() => innerVar`)
		switch {
		case err == nil:
			answered++
		case errors.Is(err, chromedpguard.ErrNavigated):
			navigated++
		default:
			other++
			t.Logf("eval %d: %v", i, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	msg, _ := json.Marshal(fmt.Sprintf("answered %d, navigated %d, other errors %d", answered, navigated, other))
	return outcome{res: &runtime.RemoteObject{Value: msg}, elapsed: time.Since(start)}
}
