module github.com/tabguard/tabguard

go 1.23

require (
	github.com/coder/websocket v1.8.15
	github.com/go-rod/rod v0.114.1
	github.com/google/go-cmp v0.7.0
	github.com/stretchr/testify v1.12.1
	github.com/ysmood/gson v0.7.3
	go.uber.org/goleak v1.3.0
)

require (
	github.com/ysmood/fetchup v0.2.3 // indirect
	github.com/ysmood/goob v0.4.0 // indirect
	github.com/ysmood/got v0.34.1 // indirect
	github.com/ysmood/leakless v0.8.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
