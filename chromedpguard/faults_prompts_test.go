package chromedpguard_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/security"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// promptFaults are loads stopped at a prompt: the load fails, and the
// watcher refuses the next eval with the prompt's own reason.
func promptFaults() map[string]cdpFault {
	return map[string]cdpFault{
		"sign-in required (HTTP 401)": {
			fault:   promptLoad(func(t *testing.T, f *fixture) string { return f.srv.URL + faultrows.SignInPath }, chromedpguard.ErrSignInRequired),
			recover: navigateHome,
		},
		"untrusted certificate": {
			fault:   promptLoad(func(t *testing.T, f *fixture) string { return faultrows.TLSServer(t, false).URL }, chromedpguard.ErrCertificate),
			recover: navigateHome,
		},
		"client certificate requested": {
			fault: promptLoad(func(t *testing.T, f *fixture) string {
				// Past the server's certificate, which the browser refuses first.
				_, err := chromedp.Call(f.tabWithin(t, 5*time.Second), security.SetIgnoreCertificateErrors, security.SetIgnoreCertificateErrorsParams{Ignore: true})
				require.NoError(t, err)
				return faultrows.TLSServer(t, true).URL
			}, chromedpguard.ErrClientCertificate),
			recover: navigateHome,
		},
		"close a page that asks to stay": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.waitLoaded(t)
				f.runJS(t, `window.onbeforeunload = e => { e.preventDefault(); e.returnValue = "" }`)
				require.ErrorIs(t, f.w.Navigate(within(t, 10*time.Second), f.srv.URL+"/?next"), chromedpguard.ErrDialogOpen)
				id := f.w.TargetID()
				start := time.Now()
				err := f.w.CloseTab(within(t, 10*time.Second))
				out := outcome{err: err, elapsed: time.Since(start)}
				infos, terr := chromedp.Targets(f.browser)
				require.NoError(t, terr)
				for _, ti := range infos {
					assert.NotEqual(t, id, ti.TargetID, "the tab is still in the browser's target list")
				}
				return out
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher { return f.openTab(t) },
		},
		"credentials refused by the server": {
			fault: func(t *testing.T, f *fixture) outcome {
				// A second watcher of the tab, which gives credentials.
				opts := &chromedpguard.Options{EvalTimeout: 10 * time.Second,
					Credentials: func(context.Context, chromedpguard.SignIn) (chromedpguard.Credentials, error) {
						return chromedpguard.Credentials{Username: faultrows.SignInUser, Password: "not-the-password"}, nil
					}}
				w := watch(t, f.tab, opts)
				start := time.Now()
				err := w.Navigate(within(t, 10*time.Second), f.srv.URL+faultrows.SignInPath)
				out := outcome{err: err, elapsed: time.Since(start)}
				require.NoError(t, w.Close(), "the tab's own watcher goes on")
				return out
			},
		},
		"navigation becomes a download": {
			fault: func(t *testing.T, f *fixture) outcome {
				// Chrome tells of a download only once the page before it
				// has loaded.
				f.waitLoaded(t)
				var ended func() bool
				if f.home != "" {
					ended = f.downloadEnded(t)
				}
				start := time.Now()
				err := f.w.Navigate(within(t, 10*time.Second), f.srv.URL+faultrows.DownloadPath)
				out := outcome{err: err, elapsed: time.Since(start)}
				if ended != nil { // a browser whose user's home is its own: look in it
					t.Logf("Chrome reported the download's end: %v", ended())
					assert.Empty(t, downloaded(t, f.home), "nothing written into the browser user's Downloads")
				}
				return out
			},
		},
		"a page asks for a permission": {
			fault: func(t *testing.T, f *fixture) outcome { return f.eval(t, faultrows.NotificationJS) },
		},
		"a page calls print()": {
			fault: func(t *testing.T, f *fixture) outcome { return f.eval(t, faultrows.PrintJS) },
		},
		"file chooser": {
			fault: func(t *testing.T, f *fixture) outcome {
				start := time.Now()
				err := f.w.Do(f.tabWithin(t, 10*time.Second), func(ctx context.Context) error {
					if _, err := chromedp.Run(ctx, chromedp.Evaluate[any]("("+faultrows.ChooserForget+")()")); err != nil {
						return err
					}
					if err := realClick(ctx, faultrows.ChooserX, faultrows.ChooserSingleY); err != nil {
						return err
					}
					_, err := chromedp.Run(ctx, chromedp.Evaluate[string]("("+faultrows.ChooserSeen+")(1)", chromedp.EvalAwaitPromise))
					return err
				})
				return outcome{err: err, elapsed: time.Since(start)}
			},
		},
	}
}

// downloadEnded listens for Chrome's report that a download in f's
// browser ended, on the browser's connection, which the watchers share
// (Chrome reports downloads to the one that set the policy), and returns a
// func that waits up to 10 s for it, reporting whether it came.
func (f *fixture) downloadEnded(t *testing.T) func() bool {
	t.Helper()
	ctx, cancel := context.WithCancel(f.browser)
	t.Cleanup(cancel)
	seen := make(chan struct{}, 1)
	report := func() {
		select {
		case seen <- struct{}{}:
		default:
		}
	}
	require.NoError(t, chromedp.ListenBrowser(ctx, func(ev any) {
		if e, ok := ev.(*browser.EventDownloadProgress); ok && e.State != browser.DownloadProgressStateInProgress {
			report()
		}
	}))
	return func() bool {
		select {
		case <-seen:
			return true
		case <-time.After(10 * time.Second):
			return false
		}
	}
}

// downloaded lists the files a browser whose user's home is home saved by
// default: those in home/Downloads, less the hidden ones (Chrome may hold
// an empty .org.chromium.Chromium.XXXXXX there for a moment as it denies
// a download). None when the folder does not exist.
func downloaded(t *testing.T, home string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(home, "Downloads"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

// promptLoad loads the URL url gives, which stops at a prompt, with
// Watcher.Navigate, which must answer reason at once, and then evaluates
// on the tab at once, refused with reason.
func promptLoad(url func(t *testing.T, f *fixture) string, reason error) func(t *testing.T, f *fixture) outcome {
	return func(t *testing.T, f *fixture) outcome {
		u := url(t, f)
		err := f.w.Navigate(within(t, 10*time.Second), u)
		// Chrome now and then reads a closed socket where a server asks
		// for a client certificate (net::ERR_SOCKET_NOT_CONNECTED): each
		// answer is at once and says what Chrome said; the next load
		// meets the request itself.
		for i := 0; i < 4 && reason == chromedpguard.ErrClientCertificate && !errors.Is(err, reason); i++ {
			t.Logf("load %d: %v", i, err)
			err = f.w.Navigate(within(t, 10*time.Second), u)
		}
		require.ErrorIs(t, err, reason)
		return f.eval(t, `() => 1`) // at once: Navigate's answer is the tab's state
	}
}
