package sim

// Reserve makes room in the global memory image for allocations of about
// bytes more, so that the allocations that follow (a graph's arrays) do
// not move the image while the host holds both copies. It changes no
// address, value or figure; a closed device ignores it.
func (d *Device) Reserve(bytes int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed {
		d.mem.Reserve(bytes)
	}
}
