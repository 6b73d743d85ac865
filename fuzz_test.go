package tabguard_test

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tabguard/tabguard"
)

var noticeRE = regexp.MustCompile(`\n<!-- truncated: showing (\d+) of (\d+) bytes, cut at maxBytes (\d+); pass a larger maxBytes to see more -->$`)

func FuzzTruncateDOM(f *testing.F) {
	f.Add("<p>héllo</p>", 5)
	f.Add("日本語👩‍💻", 7)
	f.Add(strings.Repeat("<li>👩‍💻</li>", 50), 100)
	f.Add("", 0)
	f.Add("abc", -3)
	f.Fuzz(func(t *testing.T, html string, maxBytes int) {
		if !utf8.ValidString(html) {
			return // the contract is for UTF-8 in
		}
		limit := maxBytes
		if limit <= 0 {
			limit = tabguard.DefaultMaxDOMBytes
		}
		out, truncated := tabguard.TruncateDOM(html, maxBytes)
		if len(html) <= limit {
			if truncated || out != html {
				t.Fatalf("TruncateDOM(%q, %d) = %q, %v; want it unchanged", html, maxBytes, out, truncated)
			}
			return
		}
		if !truncated {
			t.Fatalf("TruncateDOM(%d bytes, %d): not truncated", len(html), maxBytes)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("TruncateDOM(%q, %d) = %q: not UTF-8", html, maxBytes, out)
		}
		m := noticeRE.FindStringSubmatchIndex(out)
		if m == nil {
			t.Fatalf("TruncateDOM(%q, %d) = %q: no notice at the end", html, maxBytes, out)
		}
		head := out[:m[0]]
		shown, _ := strconv.Atoi(out[m[2]:m[3]])
		size, _ := strconv.Atoi(out[m[4]:m[5]])
		capped, _ := strconv.Atoi(out[m[6]:m[7]])
		switch {
		case !strings.HasPrefix(html, head):
			t.Fatalf("head %q is not a prefix of %q", head, html)
		case len(head) > limit:
			t.Fatalf("head is %d bytes, over the cap %d", len(head), limit)
		case len(head) <= limit-utf8.UTFMax:
			t.Fatalf("head is %d bytes: cut more than one rune short of %d", len(head), limit)
		case shown != len(head) || size != len(html) || capped != limit:
			t.Fatalf("notice says %d of %d cut at %d, want %d of %d cut at %d", shown, size, capped, len(head), len(html), limit)
		}
	})
}

// precedence lists the refusals of EvalBlockedReason, first match wins.
var precedence = []struct {
	on     func(tabguard.TabState) bool
	reason error
}{
	{func(s tabguard.TabState) bool { return s.BrowserGone }, tabguard.ErrBrowserGone},
	{func(s tabguard.TabState) bool { return s.Closed }, tabguard.ErrTabClosed},
	{func(s tabguard.TabState) bool { return s.Crashed }, tabguard.ErrTabCrashed},
	{func(s tabguard.TabState) bool {
		return s.LoadError != "" || s.ErrorPage || strings.HasPrefix(s.URL, "chrome-error://")
	}, tabguard.ErrNoDocument},
	{func(s tabguard.TabState) bool { return s.DialogOpen }, tabguard.ErrDialogOpen},
	{func(s tabguard.TabState) bool { return s.Paused }, tabguard.ErrPaused},
}

func FuzzEvalBlockedReason(f *testing.F) {
	f.Add(uint16(0), "http://127.0.0.1/", "oom", "net::ERR_FAILED", "alert", "hi", "other")
	f.Add(uint16(0xffff), "", "", "", "", "", "")
	f.Add(uint16(1<<6|1<<7), "u", "", "", "prompt", strings.Repeat("é", 300), "exception")
	f.Fuzz(func(t *testing.T, bits uint16, url, crash, loadErr, dialogType, dialogMsg, pause string) {
		bit := func(i int) bool { return bits&(1<<i) != 0 }
		s := tabguard.TabState{
			URL: url, Crashed: bit(0), CrashReason: crash, Committed: bit(1), LoadError: loadErr,
			ErrorPage: bit(2), Closed: bit(3), BrowserGone: bit(4), DialogOpen: bit(5),
			DialogType: dialogType, DialogMessage: dialogMsg, Paused: bit(6), PauseReason: pause,
		}
		if bit(7) {
			s.LoadError = "" // give the refusals after a load error a fair share
		}
		err := tabguard.EvalBlockedReason(s)

		var want error
		for _, p := range precedence {
			if p.on(s) {
				want = p.reason
				break
			}
		}
		if want == nil {
			if err != nil {
				t.Fatalf("EvalBlockedReason(%+v) = %v; want nil", s, err)
			}
			return
		}
		if !errors.Is(err, want) {
			t.Fatalf("EvalBlockedReason(%+v) = %v; want %v", s, err, want)
		}
		var be *tabguard.BlockedError
		if !errors.As(err, &be) || be.URL != s.URL {
			t.Fatalf("EvalBlockedReason(%+v) = %#v; want a *BlockedError with the URL", s, err)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, want.Error()) {
			t.Fatalf("message %q does not start with %q", msg, want.Error())
		}
		if want == tabguard.ErrDialogOpen && !strings.Contains(msg, "Watcher.HandleDialog") {
			t.Fatalf("dialog message %q does not say how to dismiss it", msg)
		}
		if allUTF8(url, crash, loadErr, dialogType, dialogMsg, pause) && !utf8.ValidString(msg) {
			t.Fatalf("message %q is not UTF-8", msg)
		}
		// Any BlockedError, even one built by hand, has a message that
		// starts with its reason and unwraps to it.
		for _, reason := range []error{nil, tabguard.ErrTabCrashed, tabguard.ErrNoDocument, tabguard.ErrTabClosed,
			tabguard.ErrBrowserGone, tabguard.ErrDialogOpen, tabguard.ErrPaused, tabguard.ErrNavigated, tabguard.ErrTerminated} {
			be := &tabguard.BlockedError{Reason: reason, URL: url, Detail: crash}
			msg := be.Error()
			if msg == "" || reason != nil && (!strings.HasPrefix(msg, reason.Error()) || !errors.Is(be, reason)) {
				t.Fatalf("BlockedError{%v, %q, %q}.Error() = %q", reason, url, crash, msg)
			}
		}
	})
}

func allUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}
