module github.com/tabguard/tabguard/otelguard

go 1.25

replace github.com/tabguard/tabguard => ../

require (
	github.com/go-rod/rod v0.114.1
	github.com/stretchr/testify v1.8.4
	github.com/tabguard/tabguard v0.9.0
	go.opentelemetry.io/otel v1.20.0
	go.opentelemetry.io/otel/metric v1.20.0
	go.opentelemetry.io/otel/sdk v1.20.0
	go.opentelemetry.io/otel/sdk/metric v1.20.0
	go.opentelemetry.io/otel/trace v1.20.0
	go.uber.org/goleak v1.1.10
)

require (
	github.com/coder/websocket v1.8.12 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/go-logr/logr v1.3.0 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/ysmood/fetchup v0.2.3 // indirect
	github.com/ysmood/goob v0.4.0 // indirect
	github.com/ysmood/got v0.34.1 // indirect
	github.com/ysmood/gson v0.7.3 // indirect
	github.com/ysmood/leakless v0.8.0 // indirect
	golang.org/x/lint v0.0.0-20190930215403-16217165b5de // indirect
	golang.org/x/sys v0.14.0 // indirect
	golang.org/x/tools v0.0.0-20191108193012-7d206e10da11 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
