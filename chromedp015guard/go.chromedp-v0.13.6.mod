module github.com/tabguard/tabguard/chromedp015guard

go 1.23

replace github.com/tabguard/tabguard => ../

require (
	github.com/chromedp/cdproto v0.0.0-20250403032234-65de8f5d025b
	github.com/chromedp/chromedp v0.13.6
	github.com/mailru/easyjson v0.7.7
	github.com/stretchr/testify v1.7.1
	github.com/tabguard/tabguard v0.9.0
	go.uber.org/goleak v1.1.10
)

require (
	github.com/chromedp/sysutil v1.1.0 // indirect
	github.com/coder/websocket v1.8.12 // indirect
	github.com/davecgh/go-spew v1.1.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20250211171154-1ae217ad3535 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/gobwas/pool v0.2.1 // indirect
	github.com/gobwas/ws v1.4.0 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/lint v0.0.0-20190930215403-16217165b5de // indirect
	golang.org/x/sys v0.29.0 // indirect
	golang.org/x/tools v0.0.0-20191108193012-7d206e10da11 // indirect
	gopkg.in/yaml.v3 v3.0.0-20200313102051-9f266ea9e77c // indirect
)
