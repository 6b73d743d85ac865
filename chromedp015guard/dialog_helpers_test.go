package chromedp015guard_test

import (
	"context"
	"strings"

	"github.com/chromedp/cdproto/page"
)

// isDialogOpening reports Page.javascriptDialogOpening, whichever cdproto.
func isDialogOpening(ev any) bool {
	_, ok := ev.(*page.EventJavascriptDialogOpening)
	return ok
}

// handleDialog accepts the open dialog.
func handleDialog(ctx context.Context) error {
	err := page.HandleJavaScriptDialog(true).Do(ctx)
	if err != nil && strings.Contains(err.Error(), "No dialog is showing") {
		return nil
	}
	return err
}
