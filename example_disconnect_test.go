package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/wsmeter"
)

// A program done with a browser it does not own leaves it running.
func ExampleDisconnect() {
	browser, err := testbrowser.Launch() // stands in for a browser of another program's
	if err != nil {
		fmt.Println(err)
		return
	}
	defer browser.Close()
	wsURL, err := wsmeter.ActivePortURL(browser.Launcher.Get(flags.UserDataDir))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := tabguard.Connect(ctx, wsURL)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tabguard.Disconnect(b))
	_, err = proto.BrowserGetVersion{}.Call(b.Context(ctx))
	fmt.Println(errors.Is(err, tabguard.ErrBrowserGone))
	_, err = proto.BrowserGetVersion{}.Call(browser.Context(ctx)) // its own connection
	fmt.Println(err)
	// Output:
	// <nil>
	// true
	// <nil>
}
