package tabguard_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestInsecureHosts holds Options.InsecureHosts on a real browser: a named
// host's untrusted certificate is let through, in that tab only; any
// other host's is refused, Navigate answering ErrCertificate with the
// host, while the tab keeps its page; and a list that names more than it
// reads is refused before anything is sent.
func TestInsecureHosts(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	tlsURL := faultrows.TLSServer(t, false).URL
	u, err := url.Parse(tlsURL)
	require.NoError(t, err)

	t.Run("named host", func(t *testing.T) {
		t.Parallel()
		w := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: 10 * time.Second, InsecureHosts: []string{u.Host}})
		require.NoError(t, w.Navigate(testbrowser.Context(t, 10*time.Second), tlsURL))
		res, err := w.Eval(testbrowser.Context(t, 10*time.Second), titleOnceParsed)
		require.NoError(t, err)
		assert.Equal(t, "tls", res.Value.Str())
	})

	t.Run("other host", func(t *testing.T) {
		t.Parallel()
		tlsURL := faultrows.TLSServer(t, false).URL
		u, err := url.Parse(tlsURL)
		require.NoError(t, err)
		w := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: 10 * time.Second, InsecureHosts: []string{u.Hostname() + ":1"}})
		err = w.Navigate(testbrowser.Context(t, 10*time.Second), tlsURL)
		require.ErrorIs(t, err, tabguard.ErrCertificate)
		assert.Contains(t, err.Error(), "certificate error: net::ERR_CERT_AUTHORITY_INVALID for "+u.Host)
		res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
		require.NoError(t, err, "the tab keeps its page")
		assert.Equal(t, srv.URL+"/", res.Value.Str())
	})

	t.Run("bad input", func(t *testing.T) {
		t.Parallel()
		page := loadedPage(t, srv)
		for _, hosts := range [][]string{{"*.example"}, {"https://" + u.Host}, {""}} {
			_, err := tabguard.Watch(page, &tabguard.Options{InsecureHosts: hosts})
			assert.ErrorIs(t, err, tabguard.ErrInvalidArgument, hosts)
		}
	})
}
