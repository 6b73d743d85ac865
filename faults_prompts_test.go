package tabguard_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// promptFaults are loads stopped at a prompt: the load fails, and the
// watcher refuses the next eval with the prompt's own reason.
func promptFaults() map[string]rodFault {
	return map[string]rodFault{
		"sign-in required (HTTP 401)": {
			fault:   promptLoad(func(t *testing.T, f *fixture) string { return f.srv.URL + faultrows.SignInPath }, tabguard.ErrSignInRequired),
			recover: navigateHome,
		},
		"untrusted certificate": {
			fault:   promptLoad(func(t *testing.T, f *fixture) string { return faultrows.TLSServer(t, false).URL }, tabguard.ErrCertificate),
			recover: navigateHome,
		},
		"client certificate requested": {
			fault: promptLoad(func(t *testing.T, f *fixture) string {
				// Past the server's certificate, which the browser refuses first.
				require.NoError(t, proto.SecuritySetIgnoreCertificateErrors{Ignore: true}.Call(f.b.Context(testbrowser.Context(t, 5*time.Second))))
				return faultrows.TLSServer(t, true).URL
			}, tabguard.ErrClientCertificate),
			recover: navigateHome,
		},
		"close a page that asks to stay": {
			fault: func(t *testing.T, f *fixture) outcome {
				require.NoError(t, f.page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
				armBeforeUnload(t, f)
				require.ErrorIs(t, f.w.Navigate(testbrowser.Context(t, 10*time.Second), f.srv.URL+"/?next"), tabguard.ErrDialogOpen)
				start := time.Now()
				err := f.w.CloseTab(testbrowser.Context(t, 10*time.Second))
				out := outcome{err: err, elapsed: time.Since(start)}
				targets, terr := proto.TargetGetTargets{}.Call(f.b.Context(testbrowser.Context(t, 5*time.Second)))
				require.NoError(t, terr)
				for _, ti := range targets.TargetInfos {
					assert.NotEqual(t, f.page.TargetID, ti.TargetID, "the tab is still in the browser's target list")
				}
				return out
			},
			recover: newTab,
		},
		"credentials refused by the server": {
			fault: func(t *testing.T, f *fixture) outcome {
				// A second watcher of the tab, which gives credentials.
				opts := &tabguard.Options{EvalTimeout: 10 * time.Second,
					Credentials: func(context.Context, tabguard.SignIn) (tabguard.Credentials, error) {
						return tabguard.Credentials{Username: faultrows.SignInUser, Password: "not-the-password"}, nil
					}}
				w := watch(t, f.page, opts)
				start := time.Now()
				err := w.Navigate(testbrowser.Context(t, 10*time.Second), f.srv.URL+faultrows.SignInPath)
				out := outcome{err: err, elapsed: time.Since(start)}
				require.NoError(t, w.Close(), "the tab's own watcher goes on")
				return out
			},
		},
		"navigation becomes a download": {
			fault: func(t *testing.T, f *fixture) outcome {
				// Chrome tells of a download only once the page before it
				// has loaded.
				require.NoError(t, f.page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
				var ended func() bool
				if f.b.Home != "" {
					ended = downloadEnded(t, f.b)
				}
				start := time.Now()
				err := f.w.Navigate(testbrowser.Context(t, 10*time.Second), f.srv.URL+faultrows.DownloadPath)
				out := outcome{err: err, elapsed: time.Since(start)}
				if ended != nil { // a browser whose user's home is its own: look in it
					t.Logf("Chrome reported the download's end: %v", ended())
					assert.Empty(t, downloaded(t, f.b.Home), "nothing written into the browser user's Downloads")
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
				require.NoError(t, f.page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad(), "the input is laid out")
				start := time.Now()
				err := f.w.Do(testbrowser.Context(t, 10*time.Second), func(p *rod.Page) error {
					if _, err := p.Eval(faultrows.ChooserForget); err != nil {
						return err
					}
					if err := realClick(p, faultrows.ChooserX, faultrows.ChooserSingleY); err != nil {
						return err
					}
					_, err := p.Eval(faultrows.ChooserSeen, 1)
					return err
				})
				return outcome{err: err, elapsed: time.Since(start)}
			},
		},
	}
}

// downloadEnded listens for Chrome's report that a download of b ended, on
// the connection the watchers share (Chrome reports downloads to the one
// that set the policy), and returns a func that waits up to 10 s for it,
// reporting whether it came.
func downloadEnded(t *testing.T, b *testbrowser.Browser) func() bool {
	t.Helper()
	ctx := testbrowser.Context(t, 10*time.Second)
	seen := make(chan struct{})
	wait := b.Context(ctx).EachEvent(func(e *proto.BrowserDownloadProgress) bool {
		return e.State != proto.BrowserDownloadProgressStateInProgress
	}, func(e *proto.PageDownloadProgress) bool {
		return e.State != proto.PageDownloadProgressStateInProgress
	})
	go func() { defer close(seen); wait() }()
	return func() bool {
		<-seen // wait returns when ctx ends too
		return ctx.Err() == nil
	}
}

// downloaded lists the files a browser whose user's home is home saved by
// default: those in home/Downloads, less the hidden ones (Chrome may hold
// an empty .org.chromium.Chromium.XXXXXX there for a moment as it denies
// a download).
func downloaded(t *testing.T, home string) []string {
	t.Helper()
	var names []string
	for _, name := range files(t, filepath.Join(home, "Downloads")) {
		if !strings.HasPrefix(name, ".") {
			names = append(names, name)
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
		err := f.w.Navigate(testbrowser.Context(t, 10*time.Second), u)
		// Chrome now and then reads a closed socket where a server asks
		// for a client certificate (net::ERR_SOCKET_NOT_CONNECTED): each
		// answer is at once and says what Chrome said; the next load
		// meets the request itself.
		for i := 0; i < 4 && reason == tabguard.ErrClientCertificate && !errors.Is(err, reason); i++ {
			t.Logf("load %d: %v", i, err)
			err = f.w.Navigate(testbrowser.Context(t, 10*time.Second), u)
		}
		require.ErrorIs(t, err, reason)
		return f.eval(t, `() => 1`) // at once: Navigate's answer is the tab's state
	}
}
