package engine

import (
	"context"
	"fmt"

	"github.com/tabguard/tabguard/tabstate"
)

// Certificates. Measured on Chromium 156: left alone, Chrome refuses a
// certificate it does not trust at once (net::ERR_CERT_AUTHORITY_INVALID
// and its "Privacy error" page), which the tab's state tells
// (tabstate.ErrCertificate). Security.setIgnoreCertificateErrors would
// trust every host's, browser-wide. Security.setOverrideCertificateErrors
// on a tab's session instead holds each of its requests that meets an
// untrusted certificate and sends Security.certificateError (eventId,
// errorType, requestURL), which Security.handleCertificateError answers:
// "continue" loads it, "cancel" answers Page.navigate net::ERR_ABORTED and
// commits nothing, so the tab keeps its document. One left unanswered holds
// the request, and a navigation, for good. So the engine overrides only
// when Config.InsecureHosts names hosts, and only on a driver that hands it
// the event (TabHandle.CertificateErrors); it continues the named hosts'
// requests and cancels every other, from an engine goroutine, and
// Navigate answers a cancelled one with its certificate error.

// certificateErrorParams is Security.handleCertificateError's.
type certificateErrorParams struct {
	EventID int    `json:"eventId"`
	Action  string `json:"action"`
}

// overrideParams is Security.setOverrideCertificateErrors'.
type overrideParams struct {
	Override bool `json:"override"`
}

// certificates is what a tab remembers of the certificate errors it
// refused, under its mu.
type certificates struct {
	refused uint64 // certificate errors cancelled so far
	// url and errType are the last one's: for Navigate's answer.
	url, errType string
}

// checkInsecureHosts refuses Config.InsecureHosts on a driver that does
// not hand in Security.certificateError.
func (b *Browser) checkInsecureHosts(h TabHandle) error {
	if len(b.cfg.InsecureHosts) > 0 && !h.CertificateErrors {
		return fmt.Errorf("%w: Options.InsecureHosts needs Security.certificateError, which this driver does not decode: "+
			"leave it empty, and trust the hosts' certificates where the browser runs", tabstate.ErrInvalidArgument)
	}
	return nil
}

// overrideCertificates has Chrome hold the tab's requests that meet an
// untrusted certificate for the engine, when hosts are named.
func (t *Tab) overrideCertificates(ctx context.Context, s *starter) error {
	if len(t.b.cfg.InsecureHosts) == 0 {
		return nil
	}
	if err := s.call(ctx, t.s, "Security.enable", "Security.enable", nil, nil); err != nil {
		return err
	}
	return s.call(ctx, t.s, "Security.setOverrideCertificateErrors", "Security.setOverrideCertificateErrors", overrideParams{Override: true}, nil)
}

// certificateError answers Security.certificateError, t.mu held: continue
// for a named host, cancel for any other.
func (t *Tab) certificateError(e tabstate.CertificateError) {
	if len(t.b.cfg.InsecureHosts) == 0 {
		return // another client of the tab overrides: its events are its own
	}
	action := "continue"
	if !tabstate.InsecureHost(t.b.cfg.InsecureHosts, e.URL) {
		action = "cancel"
		t.certs.refused++
		t.certs.url, t.certs.errType = e.URL, e.ErrorType
		if l := t.b.cfg.Logger; l != nil {
			l.Warn("tabguard: certificate refused", "target", t.id, "url", tabstate.ShownURL(e.URL), "error", e.ErrorType)
		}
	}
	t.answer(func(ctx context.Context) error {
		return t.s.Call(ctx, "Security.handleCertificateError", certificateErrorParams{EventID: e.EventID, Action: action}, nil)
	})
}

// certificatesRefused is how many certificate errors the tab refused.
func (t *Tab) certificatesRefused() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.certs.refused
}

// certificateSince is the refusal of a navigation to url that a cancelled
// certificate error ended, when one was cancelled after the n-th; nil
// otherwise.
func (t *Tab) certificateSince(n uint64, url string) *tabstate.BlockedError {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.certs.refused == n {
		return nil
	}
	be := tabstate.LoadFailure(t.certs.url, "net::"+t.certs.errType) // names the refused host
	if be.Reason != tabstate.ErrCertificate {
		be = &tabstate.BlockedError{Reason: tabstate.ErrCertificate, Detail: t.certs.errType}
	}
	be.URL = url
	return t.b.cfg.Advice.Refusal(be)
}
