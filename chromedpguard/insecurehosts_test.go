package chromedpguard_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard/chromedpguard"
)

// TestInsecureHostsRefused holds that Options.InsecureHosts, which needs an
// event chromedp drops, is refused with ErrInvalidArgument rather than
// leaving the tab's requests held on an untrusted certificate.
func TestInsecureHostsRefused(t *testing.T) {
	t.Parallel()
	tab := newTab(t, sharedBrowser)
	_, err := chromedpguard.Watch(tab, &chromedpguard.Options{InsecureHosts: []string{"127.0.0.1:8443"}})
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
	assert.ErrorContains(t, err, "Options.InsecureHosts")
}
