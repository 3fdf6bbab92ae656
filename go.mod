module github.com/rebalance-ref/rebalance

go 1.26
