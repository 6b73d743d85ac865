module github.com/tabguard/tabguard/examples/chromedp

go 1.25

// chromedpguard builds on the root module's tabstate and internal/cdpws.
replace (
	github.com/tabguard/tabguard => ../..
	github.com/tabguard/tabguard/chromedpguard => ../../chromedpguard
)

require (
	github.com/chromedp/cdproto v0.160.1
	github.com/chromedp/chromedp v0.23.1
	github.com/stretchr/testify v1.12.1
	github.com/tabguard/tabguard/chromedpguard v0.9.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/tabguard/tabguard v0.9.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
