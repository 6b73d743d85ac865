package tabguard

// The Watcher calls declared alike in every backend are written once, in
// chromedpguard/*_shared.go; sharegen copies them here and into
// chromedp015guard.
//go:generate go run ./internal/cmd/sharegen
