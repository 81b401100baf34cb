package memsys

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync"

	"github.com/sarchlab/akita/v3/mem/cache/writearound"
	"github.com/sarchlab/akita/v3/mem/cache/writeback"
	"github.com/sarchlab/akita/v3/mem/cache/writethrough"
	"github.com/sarchlab/akita/v3/mem/idealmemcontroller"
	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
)

// Builder builds a memory System. Set at least the engine and the config;
// the clock defaults to 1 GHz and the SM count to 1.
type Builder struct {
	engine sim.Engine
	freq   sim.Freq
	config Config
	numSMs int
	// smEngines: WithDomains; l2Engines: WithL2Domains.
	smEngines, l2Engines []sim.Engine
	// devices and link: WithDevices (devices.go).
	devices int
	link    Link
}

// MakeBuilder returns a Builder with default settings.
func MakeBuilder() Builder {
	return Builder{freq: 1 * sim.GHz, numSMs: 1}
}

// WithEngine sets the akita engine every component schedules on. The
// system works on a *sim.SerialEngine and on a *sim.ParallelEngine (see
// parallel.go); any other engine must not run events concurrently.
func (b Builder) WithEngine(engine sim.Engine) Builder {
	b.engine = engine
	return b
}

// WithFreq sets the core clock. All memory components tick with it, and
// Config's cycles and DRAM bandwidth are converted with it.
func (b Builder) WithFreq(freq sim.Freq) Builder {
	b.freq = freq
	return b
}

// WithDomains splits the system into domains that separate engines
// drive (fabricDomain): SM i, its port and its L1 on smEngines[i], the L2
// side (slices, atomic units, DRAM channels) on the engine of WithEngine.
// A message between the two sides waits for the end of the window in
// which it was sent (System.EndWindow), so the domains may run through a
// window concurrently when it is no longer than MinCrossingCycles. The
// L1s then report the lines they install and drop (TakeL1Events) rather
// than keep CoherenceL1's values themselves, which the caller replays
// into L1Values (Replay) in an order of its own. It needs the sectored L1
// and L2, one engine per SM, and no akita parallel engine.
func (b Builder) WithDomains(smEngines []sim.Engine) Builder {
	b.smEngines = smEngines
	return b
}

// WithL2Domains splits the L2 side of a system with domains
// (WithDomains) further: the slices, each with its atomic unit and its
// DRAM channel, are dealt into 1+len(engines) groups, the first on the
// engine of WithEngine and group j on engines[j-1], which run
// concurrently as the SMs' do (no slice sends to another; slices that
// answer each other's reads, under Config.L2ReadsInPartition, share a
// group). Their fabric domains follow the SMs': group j is domain
// numSMs+j (SliceDomain).
func (b Builder) WithL2Domains(engines []sim.Engine) Builder {
	b.l2Engines = engines
	return b
}

// WithConfig sets the memory configuration.
func (b Builder) WithConfig(config Config) Builder {
	b.config = config
	return b
}

// WithNumSMs sets how many SMs (and therefore L1s) the system serves.
func (b Builder) WithNumSMs(n int) Builder {
	b.numSMs = n
	return b
}

// Build validates the settings and builds the components. The name must
// follow akita's naming rules (dot-separated CamelCase, e.g. "GPU.Mem");
// components are named under it ("GPU.Mem.L1[3]", "GPU.Mem.L2[0]").
func (b Builder) Build(name string) (*System, error) {
	if b.engine == nil {
		return nil, errors.New("memsys: Builder needs an engine (WithEngine)")
	}
	if !(b.freq > 0) {
		return nil, fmt.Errorf("memsys: clock must be positive, got %v Hz", float64(b.freq))
	}
	if b.numSMs < 1 {
		return nil, fmt.Errorf("memsys: need at least one SM, got %d", b.numSMs)
	}
	if err := b.config.Validate(); err != nil {
		return nil, err
	}
	if err := validName(name); err != nil {
		return nil, err
	}
	if most := b.config.MaxSMs(); most > 0 && b.numSMs/max(b.devices, 1) > most {
		return nil, fmt.Errorf("memsys: coherence %q supports at most %d SMs a device, got %d", b.config.coherence(), most, b.numSMs/max(b.devices, 1))
	}
	if err := b.checkDevices(); err != nil {
		return nil, err
	}

	domains := b.smEngines != nil
	if domains {
		_, parallel := b.engine.(*sim.ParallelEngine)
		switch {
		case len(b.smEngines) != b.numSMs:
			return nil, fmt.Errorf("memsys: WithDomains needs one engine per SM: %d for %d SMs", len(b.smEngines), b.numSMs)
		case b.config.l1Model() != L1Sectored || b.config.l2Model() != L2Sectored:
			return nil, fmt.Errorf("memsys: domains need the sectored L1 and L2 (l1_model %q, l2_model %q)", b.config.l1Model(), b.config.l2Model())
		case parallel:
			return nil, errors.New("memsys: domains do not run on akita's parallel engine")
		}
	} else if len(b.l2Engines) > 0 {
		return nil, errors.New("memsys: WithL2Domains needs WithDomains")
	}
	cfg := systemConfig(b.config, b.devices)
	t := cfg.timing()
	s := &System{
		name:     name,
		config:   cfg,
		freq:     b.freq,
		engine:   b.engine,
		timing:   t,
		zeroLine: make([]byte, cfg.LineSizeBytes),
		masks:    make(map[uint32][]bool),
		fabric: newFabric(name+".Fabric", b.engine, b.freq,
			t.crossReq, t.crossRsp, cfg.SectorSizeBytes),
	}
	s.devices = max(b.devices, 1)
	s.devCfg = b.config
	s.fabric.devices = s.devices
	s.fabric.smsPerDevice = b.numSMs / s.devices
	s.fabric.slicesPerDevice = cfg.L2Slices / s.devices
	s.fabric.linkLatency = b.link.LatencyCycles
	if cfg.L2Partitions > 1 {
		s.fabric.farCrossing = cfg.L2FarAtomicCycles / 2
	}
	s.fabric.spread = cfg.L2LatencySpreadCycles
	s.smBufSize = int(math.Ceil(t.crossReq+s.fabric.farCrossing)) + 16
	s.smConnected = make([]bool, b.numSMs)
	s.smMsgs = make([]smSlabs, b.numSMs)
	s.numSMs = b.numSMs
	if domains {
		for i, e := range b.smEngines {
			s.fabric.doms = append(s.fabric.doms, newFabricDomain(s.fabric, i+1, e))
		}
		for j, e := range b.l2Engines {
			s.fabric.doms = append(s.fabric.doms, newFabricDomain(s.fabric, b.numSMs+1+j, e))
		}
		s.l2Groups = 1 + len(b.l2Engines)
		s.groupPools = make([]memPools, s.l2Groups)
		s.smPools = make([]memPools, b.numSMs)
	}
	s.fabric.sizeSlots()

	b.buildSlices(s)
	if cfg.L2ReadsInPartition && cfg.L2Partitions > 1 {
		// Each slice's peers: the slice at its place in every partition.
		per := cfg.L2Slices / cfg.L2Partitions
		for i, c := range s.sectoredL2s {
			c.servers = make([]*sectoredL2, cfg.L2Partitions)
			for p := range cfg.L2Partitions {
				c.servers[p] = s.sectoredL2s[p*per+i%per]
			}
		}
	}
	b.buildL1s(s)
	if cfg.coherence() == CoherenceL1 {
		s.l1Values = newL1Values(s, domains)
	}
	if engine, ok := b.engine.(*sim.ParallelEngine); ok {
		s.parallel = true
		s.fabric.locked = true
		// The DRAM channels' own events may fall on one time; see
		// parallel.go.
		ser := &eventSerialiser{locks: make(map[sim.Handler]*sync.Mutex)}
		for _, d := range s.drams {
			ser.serialise(d, d.TickingComponent)
		}
		engine.AcceptHook(ser)
	}
	// The memory side reuses its own messages (memPools) only where both
	// ends are warpgraph's event-driven models under a serial engine.
	// Under domains a fill and its answer are made and given back in
	// different domains, which may run concurrently.
	s.pools.reusing = !s.parallel && !domains && len(s.sectoredL1s) > 0 && len(s.sectoredL2s) > 0
	return s, nil
}

// buildSlices builds, for every L2 slice, its DRAM channel, its L2 cache and
// its atomic unit.
func (b Builder) buildSlices(s *System) {
	cfg := s.config
	t := s.timing
	line := cfg.LineSizeBytes
	channelBytesPerCycle := cfg.DRAMBandwidthGBPerS * 1e9 / float64(b.freq) / float64(cfg.L2Slices)
	crossRsp := int(math.Ceil(t.crossRsp))

	for i := range cfg.L2Slices {
		if cfg.l2Model() == L2Sectored {
			b.buildSectoredSlice(s, i, channelBytesPerCycle)
			continue
		}
		// akita's ideal memory controller answers after a fixed latency with
		// unlimited concurrency; the fabric's link in front of it adds the
		// channel's bandwidth. Its storage holds one line: every address
		// folds onto it, since the values are the executor's business.
		dram := idealmemcontroller.MakeBuilder().
			WithEngine(b.engine).
			WithFreq(b.freq).
			WithLatency(t.dramLatency).
			WithWidth(4).
			WithTopBufSize(cfg.dramQueueDepth()).
			WithStorage(mem.NewStorage(uint64(4 * mem.KB))).
			WithAddressConverter(lineFolder{lineSize: uint64(line)}).
			Build(fmt.Sprintf("%s.DRAM[%d]", s.name, i))
		dramPort := dram.GetPortByName("Top")
		shadow := newSliceShadow(s.fabric, line, cfg.SectorSizeBytes,
			NewIDSource(fmt.Sprintf("%s.L2Shadow[%d]", s.name, i)), t.sectorFetchRelease)
		s.fabric.plug(dramPort, endSpec{
			zone:          zoneL2,
			bufSize:       4 * cfg.dramQueueDepth(),
			bytesPerCycle: channelBytesPerCycle,
			dram:          true,
			rows:          s.devCfg.dramRows(),
			shadow:        shadow,
			role:          roleDRAM,
		})
		s.drams = append(s.drams, dram)

		l2b := writeback.MakeBuilder().
			WithEngine(b.engine).
			WithFreq(b.freq).
			WithLog2BlockSize(uint64(bits.TrailingZeros(uint(line)))).
			WithWayAssociativity(cfg.L2Ways).
			WithByteSize(uint64(cfg.L2SliceSizeBytes)).
			WithNumMSHREntry(cfg.L2MSHRs).
			WithNumReqPerCycle(cfg.L2RequestsPerCycle).
			WithDirectoryLatency(0).
			WithBankLatency(0).
			WithLowModuleFinder(&mem.SingleLowModuleFinder{LowModule: dramPort})
		if cfg.linearL2() {
			// The directory strips the slice's bits from a linearly
			// interleaved address to index its sets; under a hash (xor,
			// mix) it indexes by the whole line address (the slice's lines are
			// spread over its sets by the hash itself).
			l2b = l2b.WithInterleaving(cfg.L2InterleaveBytes/line, cfg.L2Slices, i)
		}
		l2 := l2b.Build(fmt.Sprintf("%s.L2[%d]", s.name, i))
		counter := &cacheCounter{}
		l2.AcceptHook(counter)
		l2Top := l2.GetPortByName("Top")
		s.fabric.plug(l2Top, endSpec{
			zone:          zoneL2,
			bufSize:       (crossRsp+2)*cfg.L2RequestsPerCycle + 8,
			bytesPerCycle: cfg.L2SliceBytesPerCycle,
			shadow:        shadow,
			role:          roleL2Top,
			slice:         i + 1,
		})
		// The slice's requests that wait for the DRAM channel's bandwidth
		// wait in the fabric and count against this buffer.
		l2Bottom := l2.GetPortByName("Bottom")
		s.fabric.plug(l2Bottom, endSpec{
			zone:    zoneL2,
			bufSize: cfg.dramQueueDepth(),
			shadow:  shadow,
			role:    roleL2Bottom,
		})
		// The shadow's sector fetches, for loads and atomics of lines a
		// store brought in without reading DRAM.
		shadow.port = newSinkPort(fmt.Sprintf("%s.L2[%d].SectorFetchPort", s.name, i), shadow.acceptSectors)
		s.fabric.plug(shadow.port, endSpec{zone: zoneL2, bufSize: unboundedBuf})
		shadow.top = s.fabric.ends[l2Top]
		shadow.bottom = s.fabric.ends[l2Bottom]
		shadow.dram = s.fabric.ends[dramPort]
		shadow.portEnd = s.fabric.ends[shadow.port]
		s.fabric.dirtyHolders = append(s.fabric.dirtyHolders, shadow)
		s.l2s = append(s.l2s, l2)
		s.l2Top = append(s.l2Top, l2Top)
		s.l2Stats = append(s.l2Stats, counter)

		s.atomics = append(s.atomics, b.buildAtomicUnit(s, i, l2Top))
	}
}

// buildSectoredSlice builds slice i of the sectored L2 model: the slice, its
// DRAM channel and its atomic unit.
func (b Builder) buildSectoredSlice(s *System, i int, channelBytesPerCycle float64) {
	cfg := s.config
	line := uint64(cfg.LineSizeBytes)
	name := fmt.Sprintf("%s.L2[%d]", s.name, i)
	c := &sectoredL2{
		ComponentBase: sim.NewComponentBase(name),
		fabric:        s.fabric,
		lineShift:     uint(bits.TrailingZeros64(line)),
		sectorShift:   uint(bits.TrailingZeros(uint(cfg.SectorSizeBytes))),
		fullLine:      uint32(1)<<(cfg.LineSizeBytes/cfg.SectorSizeBytes) - 1,
		fillSectors:   cfg.l2FillSectors(),
		numSets:       uint64(cfg.L2SliceSizeBytes / (cfg.L2Ways * cfg.LineSizeBytes)),
		ways:          cfg.L2Ways,
		maxMSHRs:      cfg.L2MSHRs,
		mshrs:         newLineTable[l2MSHR](),
		fetches:       make(map[uint64]l2Fetch),
		ids:           NewIDSource(name),
		pools:         s.slicePools(i),
		cyclesPerLook: cfg.l2LookupCycles(),
		combineReads:  cfg.L2CombineReads,
		storesWait:    cfg.L2StoresWaitForAtomics,
		combineLine:   ^uint64(0),
		responseDelay: sectoredL2Pipeline,
		dramDepth:     cfg.dramQueueDepth(),
		zero:          s.zeroLine,
		ownData:       cfg.l1Model() != L1Sectored,
		dirtyMask:     s.dirtyMask,
	}
	c.lines = make([]l2Line, c.numSets*uint64(c.ways))
	c.tags = make([]uint64, len(c.lines))
	for i := range c.tags {
		c.tags[i] = noTag
	}
	numSets := c.numSets
	if !cfg.linearL2() {
		// The hash spreads a slice's lines itself: index by the line.
		c.setOf = func(lineAddr uint64) uint64 { return (inDevice(lineAddr) >> c.lineShift) % numSets }
	} else {
		// Strip the slice's share of a linearly interleaved address.
		chunk, slices := uint64(cfg.L2InterleaveBytes), uint64(s.devCfg.L2Slices)
		c.setOf = func(lineAddr uint64) uint64 {
			a := inDevice(lineAddr)
			internal := a/chunk/slices*chunk + a%chunk
			return (internal >> c.lineShift) % numSets
		}
	}
	c.top = newSinkPort(name+".TopPort", c.accept)
	c.bottom = newSinkPort(name+".BottomPort", c.acceptFill)
	c.top.owner, c.bottom.owner = c, c
	c.AddPort("Top", c.top)
	c.AddPort("Bottom", c.bottom)
	dramName := fmt.Sprintf("%s.DRAM[%d]", s.name, i)
	d := &dramChannel{
		ComponentBase: sim.NewComponentBase(dramName),
		fabric:        s.fabric,
		slice:         c,
		latency:       float64(s.timing.dramLatency),
		ids:           NewIDSource(dramName),
		pools:         s.slicePools(i),
	}
	d.port = newSinkPort(dramName+".TopPort", d.accept)
	d.port.owner = d
	d.AddPort("Top", d.port)
	c.dram = d
	domain := s.SliceDomain(i)
	s.fabric.plug(d.port, endSpec{
		zone:          zoneL2,
		bufSize:       unboundedBuf,
		bytesPerCycle: channelBytesPerCycle,
		dram:          true,
		rows:          s.devCfg.dramRows(),
		domain:        domain,
	})
	s.fabric.plug(c.top, endSpec{
		zone:              zoneL2,
		bufSize:           unboundedBuf,
		bytesPerCycle:     cfg.L2SliceBytesPerCycle,
		slice:             i + 1,
		domain:            domain,
		device:            s.deviceOfSlice(i) + 1,
		linkBytesPerCycle: s.sliceLinkShare(b.link),
	})
	s.fabric.plug(c.bottom, endSpec{zone: zoneL2, bufSize: unboundedBuf, domain: domain})
	s.fabric.dirtyHolders = append(s.fabric.dirtyHolders, c)
	s.l2Top = append(s.l2Top, c.top)
	s.l2Stats = append(s.l2Stats, c)
	s.sectoredL2s = append(s.sectoredL2s, c)
	s.sectoredDRAMs = append(s.sectoredDRAMs, d)
	c.atomics = b.buildAtomicUnit(s, i, c.top)
	c.atomics.slice = c
	s.atomics = append(s.atomics, c.atomics)
}

func (b Builder) buildAtomicUnit(s *System, slice int, l2Top sim.Port) *atomicUnit {
	cfg := s.config
	name := fmt.Sprintf("%s.Atomic[%d]", s.name, slice)
	u := &atomicUnit{
		ComponentBase:       sim.NewComponentBase(name),
		fabric:              s.fabric,
		l2Dst:               l2Top,
		ids:                 NewIDSource(name),
		zeroSector:          make([]byte, cfg.SectorSizeBytes),
		aluLatency:          s.timing.atomicALU,
		cyclesPerOp:         1 / cfg.AtomicOpsPerCycle,
		sameAddrCycles:      cfg.AtomicSameAddressCycles,
		sameLineCycles:      cfg.AtomicSameLineCycles,
		openPassCycles:      cfg.AtomicOpenLinePassCycles,
		packetLineCycles:    cfg.AtomicPacketLineCycles,
		packetSectorCycles:  cfg.AtomicPacketSectorCycles,
		oneWordCycles:       cfg.AtomicOneWordCycles,
		oneWordOpen:         cfg.AtomicOneWordOpenLineOnly,
		lineBytes:           uint64(cfg.LineSizeBytes),
		openLines:           openLines(cfg.AtomicOpenLines),
		sectorPasses:        cfg.AtomicModel == AtomicSector,
		waitingForL2:        make(map[uint64]*AtomicReq),
		addrFree:            make(map[uint64]float64),
		lineLoadCycles:      cfg.AtomicLineLoadCycles,
		lineLoadExtraCycles: cfg.AtomicLineLoadExtraCycles,
		lineBusy:            make(map[uint64]float64),
		loadHeld:            make(map[uint64]float64),
		lineTurnCycles:      cfg.AtomicLineTurnCycles,
		lineTurn:            make(map[uint64]float64),
		purgeAt:             1024,
	}
	u.topPort = newSinkPort(name+".TopPort", u.accept)
	u.l2Port = newSinkPort(name+".L2Port", u.acceptSector)
	u.loadPort = newSinkPort(name+".LoadPort", u.acceptHeldLoad)
	u.topPort.owner, u.l2Port.owner, u.loadPort.owner = u, u, u
	u.AddPort("Top", u.topPort)
	u.AddPort("L2", u.l2Port)
	u.AddPort("Load", u.loadPort)
	domain := s.SliceDomain(slice)
	s.fabric.plug(u.loadPort, endSpec{zone: zoneL2, bufSize: unboundedBuf, domain: domain})
	s.fabric.plug(u.topPort, endSpec{zone: zoneL2, bufSize: unboundedBuf, partition: s.partitionOf(slice, cfg.L2Slices), slice: slice + 1, domain: domain,
		device: s.deviceOfSlice(slice) + 1, linkBytesPerCycle: s.sliceLinkShare(b.link)})
	s.fabric.plug(u.l2Port, endSpec{zone: zoneL2, bufSize: unboundedBuf, atomic: true, domain: domain})
	return u
}

// buildL1s builds one L1 per SM in front of the slices.
func (b Builder) buildL1s(s *System) {
	if s.config.l1Model() != L1Sectored {
		s.l1FlushSink = newSinkPort(s.name+".L1FlushSink", s.acceptFlushRsp)
		s.l1FlushIDs = NewIDSource(s.name + ".L1Flush")
		s.fabric.plug(s.l1FlushSink, endSpec{zone: zoneSM, bufSize: unboundedBuf})
	}
	for i := range b.numSMs {
		name := fmt.Sprintf("%s.L1[%d]", s.name, i)
		if s.config.l1Model() == L1Sectored {
			b.buildSectoredL1(s, name)
		} else {
			b.buildAkitaL1(s, name)
		}
	}
}

// unboundedBuf is the source buffer of the event-driven models' ports: they
// bound their own traffic (MSHRs, waiting loads) and never retry a send.
const unboundedBuf = math.MaxInt32

func (b Builder) buildSectoredL1(s *System, name string) {
	cfg := s.config
	line := cfg.LineSizeBytes
	c := &sectoredL1{
		name:          name,
		fabric:        s.fabric,
		lineShift:     uint(bits.TrailingZeros(uint(line))),
		sectorShift:   uint(bits.TrailingZeros(uint(cfg.SectorSizeBytes))),
		numSets:       uint64(cfg.L1SizeBytes / (cfg.L1Ways * line)),
		ways:          cfg.L1Ways,
		maxMSHRs:      cfg.L1MSHRs,
		maxWaiting:    cfg.L1MaxInflight,
		mshrs:         newLineTable[l1MSHR](),
		ids:           NewIDSource(name),
		pools:         &s.pools,
		l2For:         s.l2PortFor,
		cyclesPerLook: 1 / float64(cfg.L1RequestsPerCycle),
		responseDelay: s.timing.l1Response,
	}
	c.sm = len(s.sectoredL1s)
	c.smMsgs = &s.smMsgs[c.sm]
	domain := 0
	if s.smPools != nil {
		// Its own domain (WithDomains), with messages of its own.
		domain = c.sm + 1
		c.pools = &s.smPools[c.sm]
	}
	c.lines = make([]l1Line, c.numSets*uint64(c.ways))
	c.top = newSinkPort(name+".TopPort", c.accept)
	c.bottom = newSinkPort(name+".BottomPort", c.acceptFill)
	s.fabric.plug(c.top, endSpec{zone: zoneSM, bufSize: unboundedBuf, domain: domain})
	s.fabric.plug(c.bottom, endSpec{
		zone:          zoneSM,
		bufSize:       unboundedBuf,
		bytesPerCycle: cfg.SMToL2BytesPerCycle,
		partition:     s.partitionOf(c.sm, s.numSMs),
		sm:            c.sm + 1,
		domain:        domain,
		device:        s.deviceOfSM(c.sm) + 1,
	})
	c.device, c.devices = s.deviceOfSM(c.sm), s.devices
	s.l1Top = append(s.l1Top, c.top)
	s.l1Stats = append(s.l1Stats, c)
	s.sectoredL1s = append(s.sectoredL1s, c)
}

func (b Builder) buildAkitaL1(s *System, name string) {
	cfg := s.config
	t := s.timing
	finder := sliceFinder{s}
	log2Line := uint64(bits.TrailingZeros(uint(cfg.LineSizeBytes)))

	var l1 sim.Component
	if cfg.l1Model() == L1AkitaWriteThrough {
		// akita's writethrough builder names its control port name +
		// "ControlPort", without a dot, which akita's own name check
		// rejects after an index ("L1[3]ControlPort"); avoid the index.
		name = strings.NewReplacer("[", "Of", "]", "").Replace(name)
		l1 = writethrough.NewBuilder().
			WithEngine(b.engine).
			WithFreq(b.freq).
			WithLog2BlockSize(log2Line).
			WithTotalByteSize(uint64(cfg.L1SizeBytes)).
			WithWayAssociativity(cfg.L1Ways).
			WithNumMSHREntry(cfg.L1MSHRs).
			WithNumBanks(1).
			WithDirectoryLatency(0).
			WithBankLatency(0).
			WithNumReqsPerCycle(cfg.L1RequestsPerCycle).
			WithMaxNumConcurrentTrans(cfg.L1MaxInflight).
			WithLowModuleFinder(finder).
			Build(name)
	} else {
		l1 = writearound.NewBuilder().
			WithEngine(b.engine).
			WithFreq(b.freq).
			WithLog2BlockSize(log2Line).
			WithTotalByteSize(uint64(cfg.L1SizeBytes)).
			WithWayAssociativity(cfg.L1Ways).
			WithNumMSHREntry(cfg.L1MSHRs).
			WithNumBanks(1).
			WithDirectoryLatency(0).
			WithBankLatency(0).
			WithNumReqsPerCycle(cfg.L1RequestsPerCycle).
			WithMaxNumConcurrentTrans(cfg.L1MaxInflight).
			WithLowModuleFinder(finder).
			Build(name)
	}
	counter := &cacheCounter{}
	l1.AcceptHook(counter)

	top := l1.GetPortByName("Top")
	s.fabric.plug(top, endSpec{
		zone:          zoneSM,
		bufSize:       (int(math.Ceil(t.l1Response))+2)*cfg.L1RequestsPerCycle + 4,
		egressLatency: t.l1Response,
	})
	s.fabric.plug(l1.GetPortByName("Bottom"), endSpec{
		zone:          zoneSM,
		bufSize:       (int(math.Ceil(t.crossReq))+2)*cfg.L1RequestsPerCycle + 4,
		bytesPerCycle: cfg.SMToL2BytesPerCycle,
	})
	ctrl := l1.GetPortByName("Control")
	s.fabric.plug(ctrl, endSpec{zone: zoneSM, bufSize: 4})
	s.l1Top = append(s.l1Top, top)
	s.l1Stats = append(s.l1Stats, counter)
	s.l1Control = append(s.l1Control, ctrl)
	s.akitaL1s = append(s.akitaL1s, l1)
}

// validName reports, as an error, what akita's name check would panic on.
func validName(name string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("memsys: %v", r)
		}
	}()
	sim.NameMustBeValid(name + ".L1[0]")
	return nil
}

// lineFolder maps every address onto the first line of a DRAM channel's
// storage, so the storage stays one line however much memory a kernel
// touches.
type lineFolder struct {
	lineSize uint64
}

func (f lineFolder) ConvertExternalToInternal(external uint64) uint64 {
	return external % f.lineSize
}

func (f lineFolder) ConvertInternalToExternal(internal uint64) uint64 {
	panic("memsys: lineFolder cannot map a folded address back")
}

// sliceFinder sends an akita L1's misses to the slice that owns their
// address, under either hash.
type sliceFinder struct{ s *System }

func (f sliceFinder) Find(address uint64) sim.Port { return f.s.l2PortFor(address) }

// openLines is an atomic unit's list of open lines, n of them (at least
// one), none open yet.
func openLines(n int) []uint64 {
	lines := make([]uint64, max(n, 1))
	for i := range lines {
		lines[i] = noLine
	}
	return lines
}
