package memsys

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The L2 is write-validate: a store that misses allocates its line without
// reading DRAM, the line holds only the written sectors until a read (or
// an atomic) needs the others, and a period's DRAM writes count the dirty
// sectors still in L2 at its end (System.Stats). The sectored L2 is built
// so; under L2AkitaWriteback akita's cache stays as it is and the slice's
// shadow (shadow.go) answers the fetch of a partial store and holds loads
// until the sectors they lack arrive. Every test here runs under both.

// TestStoresDoNotReadDRAM stores whole and partial lines to lines L2 has
// never seen: nothing is read from DRAM, a partial store takes as long as
// a whole one (under akita's cache a few cycles longer: it runs the fill,
// answered at once, through its write buffer and bank stages) and far less
// than a DRAM access, and the stored sectors count as written. (akita's writethrough L1
// is left out: it allocates a line it stores to and fetches a partial one
// itself, through L2 from DRAM.)
func TestStoresDoNotReadDRAM(t *testing.T) {
	forEachL2(t, func(t *testing.T, base Config) {
		masks := []uint32{0xf, 0x1, 0x6, 0x8, 0x5}
		for _, model := range []string{L1Sectored, L1AkitaWriteAround} {
			t.Run(model, func(t *testing.T) {
				r := newRig(t, withModel(base, model), 1)
				sm := r.sms[0]
				sm.serial = true
				for i, m := range masks {
					sm.write(lineA+uint64(i)*128, m)
				}
				r.run(t)

				st := r.sys.Stats()
				assert.Zero(t, st.DRAMReadBytes, "no store reads its line")
				assert.Equal(t, uint64((4+1+2+1+2)*32), st.DRAMWriteBytes, "the stored sectors, dirty in L2")
				assert.Equal(t, uint64(len(masks)), st.L2.WriteMisses)
				lat := r.latencies(0)
				for i := range masks {
					assert.InDelta(t, float64(lat[0]), float64(lat[i]), 4, "store %d (sectors %#x)", i, masks[i])
				}
			})
		}
	})
}

// TestReadOfUnwrittenSectorsFetches stores one sector, then reads it (an L2
// hit) and the three others (fetched from DRAM then, and only they).
// akita's writethrough L1 fetches the whole line when it stores part of
// one: akita's L2 then reads the line from DRAM whole, as a load's miss,
// while the sectored L2, which has the store by then, reads the rest.
func TestReadOfUnwrittenSectorsFetches(t *testing.T) {
	forEachModel(t, func(t *testing.T, cfg Config) {
		r := newRig(t, cfg, 1)
		sm := r.sms[0]
		sm.serial = true
		sm.write(lineA, 0x1)
		sm.read(lineA, 0x1)
		sm.read(lineA, 0xe)
		sm.read(lineA, 0xf)
		r.run(t)

		st := r.sys.Stats()
		assert.Equal(t, uint64(32), st.DRAMWriteBytes, "the written sector stays dirty")
		if cfg.L1Model == L1AkitaWriteThrough {
			if cfg.L2Model == L2AkitaWriteback {
				assert.Equal(t, uint64(128), st.DRAMReadBytes, "the L1's fetch of the line")
			} else {
				// The store reaches the slice before the L1's
				// fetch, which then lacks three sectors only.
				assert.Equal(t, uint64(3*32), st.DRAMReadBytes, "the L1's fetch, less the stored sector")
			}
			return
		}
		assert.Equal(t, uint64(3*32), st.DRAMReadBytes, "the three sectors not written")
		if cfg.L1Model != L1Sectored {
			return // akita's L1s fetch the whole line at the first read
		}
		lat := r.latencies(0)
		assert.Equal(t, uint64(cfg.L2HitLatency), lat[1], "the written sector is in L2")
		assert.InDelta(t, cfg.DRAMLatency, float64(lat[2]), 1, "the other sectors come from DRAM")
		assert.Equal(t, uint64(cfg.L1HitLatency), lat[3])
	})
}

// TestAtomicsReadTheirSector checks that an atomic, which reads the bytes
// it updates, still fetches its line on a miss, and fetches its sector when
// a partially stored line lacks it.
func TestAtomicsReadTheirSector(t *testing.T) {
	forEachL2(t, func(t *testing.T, base Config) {
		r := newRig(t, base, 1)
		sm := r.sms[0]
		sm.serial = true
		sm.atomic(lineA, AtomicOp{Address: lineA, Lanes: 1}) // a line L2 never saw
		sm.write(lineB, 0x1)
		sm.atomic(lineB, AtomicOp{Address: lineB, Lanes: 1})         // the stored sector: no fetch
		sm.atomic(lineB+32, AtomicOp{Address: lineB + 32, Lanes: 1}) // sector 1 fetched
		r.run(t)

		st := r.sys.Stats()
		assert.Equal(t, uint64(128+32), st.DRAMReadBytes)
		assert.Equal(t, uint64(2*32+32), st.DRAMWriteBytes, "the atomics' sectors and the store's, dirty")
		lat := r.latencies(0)
		assert.Less(t, lat[2], lat[0], "an atomic on a stored sector does not wait for DRAM")
		assert.InDelta(t, float64(lat[0]), float64(lat[3]), 2, "nor one on a sector never stored")
	})
}

// TestDirtyBytesCountInThePeriodThatStoredThem runs two periods, as two
// launches do: the first stores a line, which stays dirty in L2 and counts
// as written then; the second evicts it, which it does not count again.
func TestDirtyBytesCountInThePeriodThatStoredThem(t *testing.T) {
	forEachL2(t, func(t *testing.T, base Config) {
		const setStride = 16 * 1024 // see TestL2EvictionWritesBack
		r := newRig(t, base, 1)
		sm := r.sms[0]
		sm.serial = true
		sm.write(0, 0xf)
		r.run(t)
		first := r.sys.Stats()
		assert.Zero(t, first.DRAMReadBytes)
		assert.Equal(t, uint64(128), first.DRAMWriteBytes)

		r.sys.ResetStats()
		for k := uint64(1); k <= 4; k++ {
			sm.read(k*setStride, 0xf)
		}
		sm.startCycle = int(sm.Freq.Cycle(r.engine.CurrentTime())) + 1
		r.run(t)
		second := r.sys.Stats()
		assert.Equal(t, uint64(4*128), second.DRAMReadBytes)
		assert.Zero(t, second.DRAMWriteBytes, "the eviction wrote what the first period counted")
	})
}

// TestLoadRacingAPartialStore stores one sector of a fresh line from one SM
// and loads the whole line from another, 0 to 40 cycles later, so that the
// load reaches the slice before, while and after akita's cache fetches the
// line for the store (the load then waits in the fetch's MSHR entry, or
// hits the line the fetch filled). Whatever the order, the load reads the
// three sectors no store wrote from DRAM and waits for them: the line's
// fetch goes to DRAM when the load is in the slice when it leaves, and
// otherwise the shadow holds the load's answer for a sector fetch.
func TestLoadRacingAPartialStore(t *testing.T) {
	forEachL2(t, func(t *testing.T, base Config) {
		for delay := 0; delay <= 40; delay += 2 {
			t.Run(fmt.Sprintf("delay%d", delay), func(t *testing.T) {
				cfg := base
				r := newRig(t, cfg, 2)
				r.sms[0].write(lineA, 0x1)
				r.sms[1].startCycle = delay
				r.sms[1].read(lineA, 0xf)
				r.run(t)

				st := r.sys.Stats()
				assert.Contains(t, []uint64{3 * 32, 128}, st.DRAMReadBytes,
					"the unwritten sectors, or the whole line")
				assert.Equal(t, uint64(32), st.DRAMWriteBytes)
				assert.GreaterOrEqual(t, r.latencies(1)[0], uint64(cfg.DRAMLatency-2),
					"the load waits for DRAM")
			})
		}
	})
}

// TestL2MSHRsLimitMisses gives each slice one MSHR and sends two misses to
// different lines of one slice in one cycle: the second waits for the
// first line's fill before it may fetch, so it takes about two DRAM trips.
func TestL2MSHRsLimitMisses(t *testing.T) {
	forEachL2(t, func(t *testing.T, base Config) {
		cfg := base
		cfg.L2MSHRs = 1
		r := newRig(t, cfg, 1)
		sm := r.sms[0]
		sm.perCycle = 2
		sm.read(lineA, 0xf)
		sm.read(lineB, 0xf) // slice 0 too
		r.run(t)

		lat := r.latencies(0)
		trip := uint64(cfg.DRAMLatency - cfg.L2HitLatency)
		assert.Equal(t, uint64(cfg.DRAMLatency), lat[0])
		assert.GreaterOrEqual(t, lat[1], uint64(cfg.DRAMLatency)+trip-2, "the second miss waits for the MSHR")
		assert.LessOrEqual(t, lat[1], uint64(cfg.DRAMLatency)+trip+10)
	})
}
