package memsys

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIDSourceNamesInOrder checks the batched IDs against the plain names
// across several batches, and that Number reads them back.
func TestIDSourceNamesInOrder(t *testing.T) {
	s := NewIDSource("GPU.SM[3]")
	for i := uint64(1); i <= 3*idBatch+5; i++ {
		id := s.Next()
		assert.Equal(t, fmt.Sprintf("GPU.SM[3]#%d", i), id)
		assert.Equal(t, i, s.Last())
		n, ok := s.Number(id)
		assert.True(t, ok)
		assert.Equal(t, i, n)
	}
	for _, bad := range []string{"", "GPU.SM[3]#", "GPU.SM[4]#1", "GPU.SM[3]#1x"} {
		_, ok := s.Number(bad)
		assert.False(t, ok, bad)
	}
}
