// Module anchor is the MGPUSim speed anchor (make bench-anchor). It is a
// separate module so that warpgraph never depends on MGPUSim or akita/v4;
// mgpusim/v4 is pinned (the proxy here refuses its version list).
module github.com/warpgraph/warpgraph/bench/anchor

go 1.25.0

require (
	github.com/sarchlab/akita/v4 v4.9.0
	github.com/sarchlab/mgpusim/v4 v4.2.0
	github.com/stretchr/testify v1.12.1
	github.com/warpgraph/warpgraph v0.0.0
)

require (
	github.com/go-ole/go-ole v1.3.0 // indirect
	github.com/go-sql-driver/mysql v1.7.1 // indirect
	github.com/google/pprof v0.0.0-20250820193118-f64d9cf942d6 // indirect
	github.com/gorilla/mux v1.8.1 // indirect
	github.com/mattn/go-sqlite3 v1.14.32 // indirect
	github.com/rs/xid v1.6.0 // indirect
	github.com/sarchlab/akita/v3 v3.1.0 // indirect
	github.com/shirou/gopsutil v3.21.11+incompatible // indirect
	github.com/syifan/goseth v0.1.2 // indirect
	github.com/tebeka/atexit v0.3.0 // indirect
	github.com/tklauser/go-sysconf v0.3.15 // indirect
	github.com/tklauser/numcpus v0.10.0 // indirect
	github.com/yusufpapurcu/wmi v1.2.4 // indirect
	go.uber.org/mock v0.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.46.0 // indirect
)

replace github.com/warpgraph/warpgraph => ../..
