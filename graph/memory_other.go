//go:build !linux

package graph

// systemMemoryBounds reads no bounds outside Linux: nothing is checked.
func systemMemoryBounds() []MemoryBound { return nil }
