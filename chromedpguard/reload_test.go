package chromedpguard_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A renderer that dies after a navigation committed but before its page
// loaded leaves Chrome's history at the entry before it, so Page.reload
// alone would bring that page back. Reload reloads the page the tab had.
// The trickling page holds the tab between commit and load for as long as
// the test needs, so two tabs at once show what five did.
func TestReloadAfterACrashMidLoad(t *testing.T) {
	t.Parallel()
	for i := range 2 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, "/", nil)
			url := f.srv.URL + "/trickle"
			require.NoError(t, f.w.Navigate(within(t, 10*time.Second), url))
			require.False(t, f.w.State().Loaded, "the page is still loading")
			f.crash(t)
			require.NoError(t, f.w.Reload(within(t, 10*time.Second)))
			assert.Equal(t, url, f.w.State().URL)
			res, err := f.w.Eval(within(t, 10*time.Second), `() => location.href`)
			require.NoError(t, err)
			assert.Equal(t, `"`+url+`"`, string(res.Value))
		})
	}
}
