package memsys

import (
	"fmt"
	"math"

	"github.com/sarchlab/akita/v3/sim"
)

// Several devices in one memory system (Builder.WithDevices): the SMs and
// the L2 slices are dealt into contiguous groups, one per device, and the
// devices' memories lie 1 << deviceAddressBits apart in one address space,
// device d's window from d << deviceAddressBits (its offset above that:
// inDevice). An address belongs to the device whose window holds it; its
// slice is one of that device's, chosen as a lone device's would be, and
// every request for it crosses to that slice. A message between two
// devices crosses the link (Link): its latency each way, and its data
// through the owner's share of the link's bandwidth. An L1 never holds
// another device's lines: a load of one bypasses it, as a load from peer
// memory over NVLink or PCIe does. One device (the default) is a lone
// GPU, unchanged.

// Link is the interconnect between the devices of a system as the memory
// system times it: each message between two devices takes LatencyCycles
// more, and each device's link carries BytesPerCycle each way, shared out
// evenly among its L2 slices (the data of a device's answers to others,
// and of others' stores into it, passes its slices' shares).
type Link struct {
	LatencyCycles float64
	BytesPerCycle float64
}

// WithDevices makes the system n devices' (see the comment above), each
// with the configuration's slices, partitions and DRAM bandwidth (one
// device's: the system holds n times them) and WithNumSMs ÷ n SMs. The
// devices support only the sectored L1 and L2.
func (b Builder) WithDevices(n int, link Link) Builder {
	b.devices, b.link = n, link
	return b
}

// checkDevices validates WithDevices' settings.
func (b Builder) checkDevices() error {
	n, c := b.devices, b.config
	switch {
	case n <= 1:
		return nil
	case b.numSMs%n != 0:
		return fmt.Errorf("memsys: %d devices need the SMs in whole shares: %d SMs", n, b.numSMs)
	case c.l1Model() != L1Sectored || c.l2Model() != L2Sectored:
		return fmt.Errorf("memsys: several devices need the sectored L1 and L2 (l1_model %q, l2_model %q)", c.l1Model(), c.l2Model())
	case !(b.link.LatencyCycles >= 0) || !(b.link.BytesPerCycle > 0):
		return fmt.Errorf("memsys: the devices' link needs a latency of at least 0 and a positive bandwidth, got %v cycles and %v bytes a cycle", b.link.LatencyCycles, b.link.BytesPerCycle)
	}
	return nil
}

// linkOut reserves src's share of its device's link for the data msg
// carries to another device, from cycle at, and returns when the data
// leaves. Called in src's domain.
func (f *fabric) linkOut(msg sim.Msg, src, dst *fabricEnd, at float64) float64 {
	return f.reserveLink(msg, src, &src.linkOutFree, src.linkBytesPerCycle, src.device-1, dst.device-1, at)
}

// linkIn is linkOut for the share of dst's device's link that data from
// another device enters by. Called in dst's domain.
func (f *fabric) linkIn(msg sim.Msg, src, dst *fabricEnd, at float64) float64 {
	return f.reserveLink(msg, dst, &dst.linkInFree, dst.linkBytesPerCycle, src.device-1, dst.device-1, at)
}

// reserveLink books msg's data on the link share of end whose free cycle
// is *free, from cycle at, counting it from device from to device to in
// end's domain, and returns the cycle the data starts.
func (f *fabric) reserveLink(msg sim.Msg, end *fabricEnd, free *float64, bytesPerCycle float64, from, to int, at float64) float64 {
	b := f.payload(msg, false)
	if b <= 0 {
		return at
	}
	start := math.Max(at, *free)
	*free = start + b/bytesPerCycle
	f.countLink(end.dom, from, to, b, start-at)
	return start
}

// countLink adds b bytes from device from to device to, which waited
// queued cycles, to domain d's counts.
func (f *fabric) countLink(d *fabricDomain, from, to int, b, queued float64) {
	if d.linkBytes == nil {
		d.linkBytes = make([]uint64, f.devices*f.devices)
	}
	d.linkBytes[from*f.devices+to] += uint64(b)
	d.linkQueued += queued
}

// deviceOf is the device of devices whose window holds address (the last
// one's for addresses past every window).
func deviceOf(address uint64, devices int) int {
	return min(int(address>>deviceAddressBits), max(devices, 1)-1)
}

// crossesDevices reports whether a message from src to dst goes between
// two devices.
func crossesDevices(src, dst *fabricEnd) bool {
	return src.device != dst.device && src.device != 0 && dst.device != 0
}

// Devices is the number of devices the system serves (1: a lone GPU).
func (s *System) Devices() int { return s.devices }

// deviceOfSM is SM sm's device.
func (s *System) deviceOfSM(sm int) int { return sm / (s.numSMs / s.devices) }

// deviceOfSlice is slice i's device.
func (s *System) deviceOfSlice(i int) int { return i / (s.config.L2Slices / s.devices) }

// sliceLinkShare is a slice's share of its device's link bandwidth (0:
// one device, no link).
func (s *System) sliceLinkShare(l Link) float64 {
	if s.devices <= 1 {
		return 0
	}
	return l.BytesPerCycle / float64(s.devCfg.L2Slices)
}

// systemConfig is the configuration of n devices of configuration c
// together: n times its slices, partitions and DRAM bandwidth.
func systemConfig(c Config, n int) Config {
	if n <= 1 {
		return c
	}
	c.L2Slices *= n
	if c.L2Partitions > 1 {
		c.L2Partitions *= n
	}
	c.DRAMBandwidthGBPerS *= float64(n)
	return c
}

// LinkStats are what crossed between devices since the last ResetStats:
// bytes of data by sending and receiving device, and the cycles messages
// waited for their share of a link.
type LinkStats struct {
	Bytes        [][]uint64
	QueuedCycles float64
}

// LinkStats returns the link's traffic since the last ResetStats (nil
// Bytes for a lone device).
func (s *System) LinkStats() LinkStats {
	f := s.fabric
	f.lock()
	defer f.unlock()
	var out LinkStats
	if s.devices <= 1 {
		return out
	}
	out.Bytes = make([][]uint64, s.devices)
	for i := range out.Bytes {
		out.Bytes[i] = make([]uint64, s.devices)
	}
	for _, d := range f.doms {
		for k, b := range d.linkBytes {
			out.Bytes[k/s.devices][k%s.devices] += b
		}
		out.QueuedCycles += d.linkQueued
	}
	return out
}

// CopyL2 makes device dstDev's L2 slices in dst hold what device srcDev's
// hold in src: each slice's lines (tags, valid and dirty sectors, their
// order of use) and its DRAM channel's open rows. A system of several
// devices runs their launches on the devices' own systems and their
// co-launches on one of all of them; copying the L2s before and after a
// co-launch lets both see one L2 per device. Both systems must be idle
// (between launches: no fetch outstanding) and have the same slices per
// device, sectored.
func CopyL2(dst *System, dstDev int, src *System, srcDev int) error {
	per := src.config.L2Slices / src.devices
	switch {
	case dst.config.L2Slices/dst.devices != per:
		return fmt.Errorf("memsys: copying an L2 of %d slices into one of %d", per, dst.config.L2Slices/dst.devices)
	case len(src.sectoredL2s) != src.config.L2Slices || len(dst.sectoredL2s) != dst.config.L2Slices:
		return fmt.Errorf("memsys: only sectored L2s are copied")
	case srcDev < 0 || srcDev >= src.devices || dstDev < 0 || dstDev >= dst.devices:
		return fmt.Errorf("memsys: copying device %d's L2 of %d devices into device %d's of %d", srcDev, src.devices, dstDev, dst.devices)
	}
	src.fabric.lock()
	defer src.fabric.unlock()
	if dst.fabric != src.fabric {
		dst.fabric.lock()
		defer dst.fabric.unlock()
	}
	for i := range per {
		from, to := src.sectoredL2s[srcDev*per+i], dst.sectoredL2s[dstDev*per+i]
		if err := to.copyLines(from); err != nil {
			return err
		}
		fromRows := src.fabric.mustEnd(from.dram.port, "copy rows of").rows
		toRows := dst.fabric.mustEnd(to.dram.port, "copy rows into").rows
		if fromRows != nil && toRows != nil {
			toRows.open = append(toRows.open[:0], fromRows.open...)
		}
	}
	return nil
}

// copyLines makes the slice hold from's lines, in from's order of use.
func (c *sectoredL2) copyLines(from *sectoredL2) error {
	switch {
	case len(c.lines) != len(from.lines) || c.ways != from.ways:
		return fmt.Errorf("memsys: %s and %s have different geometries", c.Name(), from.Name())
	case c.mshrs.len() != 0 || from.mshrs.len() != 0 || len(c.fetches) != 0 || len(from.fetches) != 0:
		return fmt.Errorf("memsys: %s or %s has fetches outstanding: copy L2s between launches", c.Name(), from.Name())
	}
	copy(c.lines, from.lines)
	copy(c.tags, from.tags)
	c.useClock, c.dirtyBytes = from.useClock, from.dirtyBytes
	return nil
}
