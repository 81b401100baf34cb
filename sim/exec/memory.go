package exec

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Address map. Global memory is one flat image starting at GlobalBase, so
// a null pointer, a small offset from one, or a pointer truncated to 32 bits
// all fault. Generic addresses reach a CTA's shared memory through
// SharedWindow (the same window in every CTA, as on hardware: the SM
// resolves it to the issuing CTA's allocation) and a thread's local memory
// through LocalWindow; everything else in the generic space is global.
const (
	// GlobalBase is the device address of the first byte of global memory.
	GlobalBase uint64 = 1 << 32
	// LocalWindow is the generic address of local address 0.
	LocalWindow uint64 = 0x0000_7e00_0000_0000
	// SharedWindow is the generic address of shared address 0.
	SharedWindow uint64 = 0x0000_7f00_0000_0000
	// windowSize is the extent of each generic window.
	windowSize uint64 = 1 << 32
	// AllocAlign is the alignment (and size granularity) of allocations.
	AllocAlign = 256
	// DeviceStride is how far apart the devices of a system that share one
	// address space (a co-launch's: NewMemoryOf) have their global memory:
	// device d's starts at DeviceBase(d), and every device's addresses are
	// below LocalWindow.
	DeviceStride uint64 = 1 << 40
	// MaxDevices is how many devices' memories fit below LocalWindow.
	MaxDevices = int((LocalWindow - GlobalBase) / DeviceStride)
)

// DeviceBase is the address of the first byte of device d's global memory
// in a system of devices that share one address space; device 0's is
// GlobalBase, a lone device's memory.
func DeviceBase(d int) uint64 { return GlobalBase + uint64(d)*DeviceStride }

// DeviceOf is the device whose memory window holds global address a in a
// shared address space (-1: below GlobalBase or past MaxDevices).
func DeviceOf(a uint64) int {
	if a < GlobalBase {
		return -1
	}
	if d := (a - GlobalBase) / DeviceStride; d < uint64(MaxDevices) {
		return int(d)
	}
	return -1
}

// Memory is a device's global memory: one flat, growable byte image with a
// first-fit allocator. Kernel accesses are checked against the image (the
// range from its base, GlobalBase or DeviceBase, to the end of the highest
// allocation), host copies against the live allocation they touch. Memory
// is not safe for concurrent use.
type Memory struct {
	data  []byte
	base  uint64 // the address of data[0]
	limit uint64 // most bytes the image may hold
	live  []span // live allocations (size rounded), sorted by address
	free  []span // free spans below len(data), sorted by address
	// used is how far into data's array the image has ever reached: the
	// bytes past it are still the zeros make gave them.
	used uint64
	// checkBounds has kernels' global accesses checked against the bytes
	// each live allocation asked for (SetCheckBounds).
	checkBounds bool
}

// span is a stretch of the image: size bytes (rounded to AllocAlign) from
// addr, of which a live allocation asked for the first asked.
type span struct{ addr, size, asked uint64 }

// NewMemory returns an empty global memory that may grow to limit bytes
// (0: no limit beyond the host's and DeviceStride).
func NewMemory(limit uint64) *Memory { return NewMemoryOf(0, limit) }

// NewMemoryOf returns device d's empty global memory in a system of devices
// that share one address space: its addresses start at DeviceBase(d), so
// that no two devices' pointers are equal (as CUDA's unified addressing
// gives) and a co-launch's kernels reach every device's memory
// (Launch.Parts). Device 0's is NewMemory's.
func NewMemoryOf(d int, limit uint64) *Memory {
	if d < 0 || d >= MaxDevices {
		panic(fmt.Sprintf("exec: device %d of a shared address space (0 to %d)", d, MaxDevices-1))
	}
	if limit == 0 || limit > DeviceStride {
		limit = DeviceStride // no limit but the device's window
	}
	return &Memory{limit: limit, base: DeviceBase(d)}
}

// Base is the address of the memory's first byte.
func (m *Memory) Base() uint64 { return m.base }

// holds reports whether the n bytes at a lie inside the image.
func (m *Memory) holds(a, n uint64) bool {
	o := a - m.base
	return a >= m.base && o < uint64(len(m.data)) && uint64(len(m.data))-o >= n
}

// Size is the number of bytes in the image: the simulated global memory.
func (m *Memory) Size() int { return len(m.data) }

// Alloc reserves n bytes (rounded up to AllocAlign), zeroed, and returns
// their device address.
func (m *Memory) Alloc(n int) (uint64, error) {
	if n < 0 {
		return 0, fmt.Errorf("alloc of %d bytes", n)
	}
	size := (uint64(n) + AllocAlign - 1) / AllocAlign * AllocAlign
	if size == 0 {
		size = AllocAlign
	}
	for i, f := range m.free {
		if f.size < size {
			continue
		}
		addr := f.addr
		if f.size == size {
			m.free = slices.Delete(m.free, i, i+1)
		} else {
			m.free[i] = span{addr: f.addr + size, size: f.size - size}
		}
		off := addr - m.base
		clear(m.data[off : off+size])
		m.live = insertSpan(m.live, span{addr, size, uint64(n)})
		return addr, nil
	}
	top := uint64(len(m.data))
	if top+size > m.limit {
		return 0, fmt.Errorf("out of device memory: %d bytes requested, %d of %d in use", n, top, m.limit)
	}
	m.grow(size)
	addr := m.base + top
	m.live = insertSpan(m.live, span{addr, size, uint64(n)})
	return addr, nil
}

// grow extends the image by size zeroed bytes. Past the array's capacity
// the image moves to a new array with a quarter more room than it needs
// (Reserve sets the room ahead). The array is made, not appended to:
// append zeroes a new array's whole capacity, so the host would hold
// memory no allocation uses, while the untouched tail of a made array
// takes no host memory until an allocation reaches it; for the same
// reason only the bytes below used are cleared.
func (m *Memory) grow(size uint64) {
	top := uint64(len(m.data))
	end := top + size
	if end > uint64(cap(m.data)) {
		m.move(min(max(end, end+end/4), max(m.limit, end)))
	}
	m.data = m.data[:end]
	clear(m.data[top:min(end, max(m.used, top))])
	m.used = max(m.used, end)
}

// move copies the image into a new array of capacity c.
func (m *Memory) move(c uint64) {
	data := make([]byte, len(m.data), c)
	copy(data, m.data)
	m.data = data
	m.used = uint64(len(data))
}

// Reserve makes room for n more bytes of allocations without moving the
// image again: a host that knows its next allocations (a graph's arrays)
// saves the copies of a growing image and the time the host holds the old
// array beside the new one. Addresses and contents are as without it; the
// room is capped at the memory's limit.
func (m *Memory) Reserve(n int) {
	if n <= 0 {
		return
	}
	c := min(uint64(len(m.data))+uint64(n), max(m.limit, uint64(len(m.data))))
	if c > uint64(cap(m.data)) {
		m.move(c)
	}
}

// Free releases an allocation made by Alloc.
func (m *Memory) Free(addr uint64) error {
	j, ok := findSpan(m.live, addr)
	if !ok {
		return fmt.Errorf("free of %#x: not an allocation", addr)
	}
	size := m.live[j].size
	m.live = slices.Delete(m.live, j, j+1)
	m.free = insertSpan(m.free, span{addr: addr, size: size})
	i, _ := findSpan(m.free, addr)
	// Coalesce with the neighbours.
	if i+1 < len(m.free) && m.free[i].addr+m.free[i].size == m.free[i+1].addr {
		m.free[i].size += m.free[i+1].size
		m.free = slices.Delete(m.free, i+1, i+2)
	}
	if i > 0 && m.free[i-1].addr+m.free[i-1].size == m.free[i].addr {
		m.free[i-1].size += m.free[i].size
		m.free = slices.Delete(m.free, i, i+1)
		i--
	}
	// A free span at the top shrinks the image.
	if last := m.free[len(m.free)-1]; last.addr+last.size == m.base+uint64(len(m.data)) {
		m.data = m.data[:last.addr-m.base]
		m.free = m.free[:len(m.free)-1]
	}
	return nil
}

// SetCheckBounds has kernels' global accesses checked against the live
// allocations (on) rather than the image (off, the default, as the GPU
// does): an access that is not inside the bytes one allocation asked for
// faults, naming the nearest allocation. Allocations are rounded up to
// AllocAlign, so an overrun into that padding, which the GPU lets pass,
// is caught too.
func (m *Memory) SetCheckBounds(on bool) { m.checkBounds = on }

// checked reports whether bounds are checked and the n-byte access at addr
// fails the check (the fast paths' test; resolve then names the fault).
func (m *Memory) checked(addr, n uint64) bool {
	return m.checkBounds && m.outsideAllocations(addr, n) != ""
}

// outsideAllocations says, for a checked n-byte access at addr, why it is
// not inside the bytes one live allocation asked for ("" when it is).
func (m *Memory) outsideAllocations(addr, n uint64) string {
	if s, ok := m.liveBelow(addr); ok {
		if addr+n <= s.addr+s.asked {
			return ""
		}
		if addr < s.addr+s.size {
			return fmt.Sprintf("address past the end of the %d-byte allocation at %#x (byte %d of it)", s.asked, s.addr, addr-s.addr)
		}
	}
	return "address inside no live allocation"
}

// liveBelow returns the live allocation starting last at or below addr:
// the one that holds addr, if any does.
func (m *Memory) liveBelow(addr uint64) (span, bool) {
	i, found := findSpan(m.live, addr)
	if !found {
		i--
	}
	if i < 0 {
		return span{}, false
	}
	return m.live[i], true
}

// hostRange checks that [addr, addr+n) lies inside one live allocation and
// returns its offset in the image.
func (m *Memory) hostRange(addr uint64, n int, what string) (uint64, error) {
	if n < 0 {
		return 0, fmt.Errorf("%s of %d bytes", what, n)
	}
	if addr < m.base || addr-m.base > uint64(len(m.data)) || uint64(n) > uint64(len(m.data))-(addr-m.base) {
		return 0, fmt.Errorf("%s of %d bytes at %#x: outside device memory [%#x, %#x)", what, n, addr, m.base, m.base+uint64(len(m.data)))
	}
	if n == 0 {
		return addr - m.base, nil
	}
	if s, ok := m.liveBelow(addr); !ok || addr+uint64(n) > s.addr+s.size {
		return 0, fmt.Errorf("%s of %d bytes at %#x: not inside one live allocation", what, n, addr)
	}
	return addr - m.base, nil
}

// Write copies src to device address addr.
func (m *Memory) Write(addr uint64, src []byte) error {
	off, err := m.hostRange(addr, len(src), "copy to device")
	if err != nil {
		return err
	}
	copy(m.data[off:], src)
	return nil
}

// Read copies device memory at addr into dst.
func (m *Memory) Read(dst []byte, addr uint64) error {
	off, err := m.hostRange(addr, len(dst), "copy from device")
	if err != nil {
		return err
	}
	copy(dst, m.data[off:])
	return nil
}

// Fill sets n bytes at addr to v.
func (m *Memory) Fill(addr uint64, v byte, n int) error {
	off, err := m.hostRange(addr, n, "memset")
	if err != nil {
		return err
	}
	b := m.data[off : off+uint64(n)]
	for i := range b {
		b[i] = v
	}
	return nil
}

// load reads size bytes (1, 2, 4 or 8) little-endian at offset off of buf.
// The caller has checked the range.
func load(buf []byte, off uint64, size int) uint64 {
	switch size {
	case 1:
		return uint64(buf[off])
	case 2:
		return uint64(binary.LittleEndian.Uint16(buf[off:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(buf[off:]))
	default:
		return binary.LittleEndian.Uint64(buf[off:])
	}
}

// store writes the low size bytes of v at offset off of buf.
func store(buf []byte, off uint64, size int, v uint64) {
	switch size {
	case 1:
		buf[off] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(buf[off:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(buf[off:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(buf[off:], v)
	}
}

// storeChanged writes the low size bytes of v at offset off of buf and
// reports whether that changed them (progress: see Watchdog).
func storeChanged(buf []byte, off uint64, size int, v uint64) bool {
	if size < 8 {
		v &= 1<<(8*uint(size)) - 1
	}
	if load(buf, off, size) == v {
		return false
	}
	store(buf, off, size, v)
	return true
}

// findSpan returns the index of the span starting at addr in the sorted
// spans, or where one would be inserted.
func findSpan(spans []span, addr uint64) (int, bool) {
	return slices.BinarySearchFunc(spans, addr, func(s span, a uint64) int {
		switch {
		case s.addr < a:
			return -1
		case s.addr > a:
			return 1
		}
		return 0
	})
}

func insertSpan(spans []span, s span) []span {
	i, _ := findSpan(spans, s.addr)
	return slices.Insert(spans, i, s)
}
