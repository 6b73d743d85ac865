package chromedpguard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

// hang hangs the tab's renderer outside JavaScript, once its page has
// loaded: chrome://hang stops the renderer's main thread in C++, so
// neither an evaluate nor an interrupt is answered. Chrome ignores it
// while the page is still loading.
func (f *fixture) hang(t *testing.T) {
	t.Helper()
	f.waitLoaded(t)
	_ = f.navigate(t, f.tabWithin(t, 10*time.Second), "chrome://hang")
	eventually(t, "the renderer to hang", func() bool {
		info, err := chromedp.CallBrowser(f.browserWithin(t, 2*time.Second), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: f.w.TargetID()})
		return err == nil && info.TargetInfo.URL == "chrome://hang/"
	})
	// The target shows the URL before the renderer stops: wait until an
	// evaluate gets no answer.
	eventually(t, "the renderer to stop answering", func() bool {
		ctx, cancel := context.WithTimeout(f.tab, 300*time.Millisecond)
		defer cancel()
		_, err := chromedp.Run(ctx, chromedp.Evaluate[int](`1`))
		return errors.Is(err, context.DeadlineExceeded)
	})
}

// helperFaults are the guarded helpers' rows on chromedp.
func helperFaults() map[string]cdpFault {
	return map[string]cdpFault{
		"cookies of a crashed tab": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.runJS(t, `document.cookie = "tabguard=1"`)
				f.crash(t)
				start := time.Now()
				cookies, err := f.w.Cookies(within(t, 10*time.Second))
				names := make([]string, len(cookies))
				for i, c := range cookies {
					names[i] = c.Name + "=" + c.Value
				}
				v, _ := json.Marshal(strings.Join(names, "; "))
				return outcome{res: &runtime.RemoteObject{Value: v}, err: err, elapsed: time.Since(start)}
			},
			recover: reloadTab,
		},
		"screenshot while the page loops": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.runJS(t, `setTimeout(() => { while (true) {} }, 0)`)
				start := time.Now()
				shot, err := f.w.Screenshot(within(t, 10*time.Second), false, 0)
				require.Empty(t, shot)
				return outcome{err: err, elapsed: time.Since(start)}
			},
		},
		"PDF of a hung renderer": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.hang(t)
				start := time.Now()
				pdf, err := f.w.PDF(within(t, 10*time.Second), nil)
				require.Empty(t, pdf)
				return outcome{err: err, elapsed: time.Since(start)}
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				ctx := within(t, 20*time.Second)
				r, err := f.w.Recover(ctx)
				require.NoError(t, err)
				assert.Equal(t, chromedpguard.CrashedAndReloaded, r.Action)
				pdf, err := f.w.PDF(ctx, nil)
				require.NoError(t, err, "the tab prints again")
				assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
				return f.w
			},
		},
	}
}
