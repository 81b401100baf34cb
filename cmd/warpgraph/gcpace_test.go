package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGCPercent(t *testing.T) {
	tests := []struct {
		name  string
		graph int
		want  int
	}{
		{"no graph: Go's default", 0, 100},
		{"a graph of the allowance's size", gcAllowance / 2, 50},
		{"a large graph", 8 * gcAllowance, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, gcPercent(tc.graph))
		})
	}
}
