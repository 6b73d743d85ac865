package chromedpguard_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/require"
)

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
	}
}
