// Package ref owns warpgraph's CPU reference algorithms and the validators
// that check executor results against them, one file per algorithm, each
// with its exact semantics in its doc comment, plus certificates that check
// the references independently and a common Report type stating what was
// compared and with which tolerance.
//
// The references are plain sequential (PageRank and belief propagation use a
// fixed chunking over goroutines whose results do not depend on the number of
// cores) and are meant to validate graphs of tens of millions of edges in
// seconds. The package imports only graph and the standard library; it must
// not import the simulator, the kernels or the hardware backend, so that a
// result can be checked independently of whatever produced it.
package ref
