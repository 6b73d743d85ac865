module github.com/tabguard/tabguard

go 1.23

require (
	github.com/coder/websocket v1.8.12
	github.com/go-rod/rod v0.116.2
	github.com/google/go-cmp v0.4.0
	github.com/stretchr/testify v1.7.1
	github.com/ysmood/gson v0.7.3
	go.uber.org/goleak v1.1.10
)

require (
	github.com/davecgh/go-spew v1.1.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/ysmood/fetchup v0.2.3 // indirect
	github.com/ysmood/goob v0.4.0 // indirect
	github.com/ysmood/got v0.40.0 // indirect
	github.com/ysmood/leakless v0.9.0 // indirect
	golang.org/x/lint v0.0.0-20190930215403-16217165b5de // indirect
	golang.org/x/tools v0.0.0-20191108193012-7d206e10da11 // indirect
	golang.org/x/xerrors v0.0.0-20191204190536-9bdfabe68543 // indirect
	gopkg.in/yaml.v3 v3.0.0-20200313102051-9f266ea9e77c // indirect
)
