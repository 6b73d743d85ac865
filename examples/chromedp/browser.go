package main

import (
	"os"

	"github.com/chromedp/chromedp"
)

// allocatorOptions runs a system Chromium headless with a fresh user-data
// dir. chromedp finds the browser on PATH, or takes $TABGUARD_BROWSER; it
// never downloads one.
func allocatorOptions(userDataDir string) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(userDataDir),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	if bin := os.Getenv("TABGUARD_BROWSER"); bin != "" {
		opts = append(opts, chromedp.ExecPath(bin))
	}
	return opts
}
