package tabguard_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/ysmood/gson"
)

// helperFaults are the guarded helpers' rows on rod.
func helperFaults() map[string]rodFault {
	return map[string]rodFault{
		"cookies of a crashed tab": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.runJS(t, `document.cookie = "tabguard=1"`)
				crash(t, f.page)
				f.waitBlocked(t, tabguard.ErrTabCrashed)
				start := time.Now()
				cookies, err := f.w.Cookies(testbrowser.Context(t, 10*time.Second))
				names := make([]string, len(cookies))
				for i, c := range cookies {
					names[i] = c.Name + "=" + c.Value
				}
				return outcome{res: &proto.RuntimeRemoteObject{Value: gson.New(strings.Join(names, "; "))}, err: err, elapsed: time.Since(start)}
			},
			recover: reloadTab,
		},
		"screenshot while the page loops": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.runJS(t, `setTimeout(() => { while (true) {} }, 0)`)
				start := time.Now()
				shot, err := f.w.Screenshot(testbrowser.Context(t, 10*time.Second), false, nil)
				require.Empty(t, shot)
				return outcome{err: err, elapsed: time.Since(start)}
			},
		},
		"PDF of a hung renderer": {
			fault: func(t *testing.T, f *fixture) outcome {
				require.NoError(t, f.page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
				hang(t, f.page)
				start := time.Now()
				pdf, err := f.w.PDF(testbrowser.Context(t, 10*time.Second), nil)
				require.Empty(t, pdf)
				return outcome{err: err, elapsed: time.Since(start)}
			},
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				ctx := testbrowser.Context(t, 20*time.Second)
				r, err := f.w.Recover(ctx)
				require.NoError(t, err)
				assert.Equal(t, tabguard.CrashedAndReloaded, r.Action)
				pdf, err := f.w.PDF(ctx, nil)
				require.NoError(t, err, "the tab prints again")
				assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
				return f.w
			},
		},
	}
}
