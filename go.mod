module github.com/rebalance-ref/rebalance

go 1.26

require (
	github.com/cockroachdb/datadriven v1.0.2
	github.com/google/go-cmp v0.7.0
	github.com/spf13/cobra v1.10.2
	pgregory.net/rapid v1.3.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
