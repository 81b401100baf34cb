package timing

import (
	"sync"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/warpgraph/warpgraph/sim/memsys"
)

// smPort is the SM's port to the memory system: akita's LimitNumMsgPort
// (a buffer of capacity messages, the same hooks, the same notifications
// in the same order) without its two locks per call under the serial
// engine, and with a ring for a buffer (akita's re-slices a slice, which
// grows again every few messages).
type smPort struct {
	sim.HookableBase
	memsys.EndSlot // the memory system's fabric finds the port's record here
	name           string
	comp           sim.Component
	conn           sim.Connection
	// locked: the parallel engine, whose deliveries may call Recv while
	// another goroutine runs.
	locked bool
	mu     sync.Mutex

	ring       []sim.Msg
	head, size int
	busy       bool // a Recv was refused; Retrieve notifies the connection
	// answered, when set, says whether the answer of a load its L1
	// answered at once (lsu.hits) is delivered at the time given: that
	// answer takes a place in the buffer then, as its message would.
	answered func(now sim.VTimeInSec) bool
}

func newSMPort(comp sim.Component, capacity int, name string, locked bool) *smPort {
	sim.NameMustBeValid(name)
	return &smPort{name: name, comp: comp, locked: locked, ring: make([]sim.Msg, capacity)}
}

func (p *smPort) Name() string                   { return p.name }
func (p *smPort) SetConnection(c sim.Connection) { p.conn = c }
func (p *smPort) Component() sim.Component       { return p.comp }
func (p *smPort) CanSend() bool                  { return p.conn.CanSend(p) }

// NotifyAvailable tells the SM that the connection takes messages again.
func (p *smPort) NotifyAvailable(now sim.VTimeInSec) {
	if p.comp != nil {
		p.comp.NotifyPortFree(now, p)
	}
}

// Send passes msg to the connection.
func (p *smPort) Send(msg sim.Msg) *sim.SendError {
	err := p.conn.Send(msg)
	if err == nil && p.NumHooks() > 0 {
		p.InvokeHook(sim.HookCtx{Domain: p, Pos: sim.HookPosPortMsgSend, Item: msg})
	}
	return err
}

// Recv buffers a delivered message and notifies the SM, or refuses it
// when the buffer is full.
func (p *smPort) Recv(msg sim.Msg) *sim.SendError {
	if p.locked {
		p.mu.Lock()
	}
	if p.size == len(p.ring) || (p.size == len(p.ring)-1 && p.answered != nil && p.answered(msg.Meta().RecvTime)) {
		p.busy = true
		if p.locked {
			p.mu.Unlock()
		}
		return sim.NewSendError()
	}
	if p.NumHooks() > 0 {
		p.InvokeHook(sim.HookCtx{Domain: p, Pos: sim.HookPosPortMsgRecvd, Item: msg})
	}
	i := p.head + p.size
	if i >= len(p.ring) {
		i -= len(p.ring)
	}
	p.ring[i] = msg
	p.size++
	if p.locked {
		p.mu.Unlock()
	}
	if p.comp != nil {
		p.comp.NotifyRecv(msg.Meta().RecvTime, p)
	}
	return nil
}

// Retrieve takes the oldest buffered message (nil: none); the first
// after a refusal notifies the connection.
func (p *smPort) Retrieve(now sim.VTimeInSec) sim.Msg {
	if p.locked {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	if p.size == 0 {
		return nil
	}
	msg := p.ring[p.head]
	p.ring[p.head] = nil
	p.head++
	if p.head == len(p.ring) {
		p.head = 0
	}
	p.size--
	if p.NumHooks() > 0 {
		p.InvokeHook(sim.HookCtx{Domain: p, Pos: sim.HookPosPortMsgRetrieve, Item: msg})
	}
	if p.busy {
		p.busy = false
		p.conn.NotifyAvailable(now, p)
	}
	return msg
}

// Peek returns the oldest buffered message without taking it.
func (p *smPort) Peek() sim.Msg {
	if p.locked {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	if p.size == 0 {
		return nil
	}
	return p.ring[p.head]
}
