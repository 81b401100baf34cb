package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Module is one compiled PTX file and the kernel entries it holds.
type Module struct {
	// Name is the source file's base name without extension, e.g. "bfs".
	Name    string
	PTX     []byte
	Kernels []*Kernel
}

// Param is one parameter of a kernel entry, from its .entry signature.
type Param struct {
	Name  string
	Size  int // bytes: 4 or 8 for scalars and pointers
	Align int
}

// Kernel is one extern "C" entry point of a module.
type Kernel struct {
	Name   string
	Module *Module
	Params []Param
}

// PackArgs checks args against the kernel's signature and lays them out as
// the parameter buffer (each at its alignment). Accepted argument types are
// DevPtr, the sized integer types and float32/float64; the size of each
// must equal the parameter's size, so a wrong count or width is an error
// before anything runs.
func (k *Kernel) PackArgs(args ...any) ([]byte, error) {
	if len(args) != len(k.Params) {
		return nil, fmt.Errorf("kernel %s takes %d arguments, got %d", k.Name, len(k.Params), len(args))
	}
	var buf []byte
	for i, a := range args {
		p := k.Params[i]
		raw, err := argBytes(a)
		if err != nil {
			return nil, fmt.Errorf("kernel %s argument %d (%s): %w", k.Name, i, p.Name, err)
		}
		if len(raw) != p.Size {
			return nil, fmt.Errorf("kernel %s argument %d (%s) is %d bytes (%T), the parameter is %d bytes", k.Name, i, p.Name, len(raw), a, p.Size)
		}
		align := max(p.Align, 1)
		for len(buf)%align != 0 {
			buf = append(buf, 0)
		}
		buf = append(buf, raw...)
	}
	return buf, nil
}

// ParamOffsets returns the byte offset of each parameter in the buffer
// PackArgs builds.
func (k *Kernel) ParamOffsets() []int {
	offs := make([]int, len(k.Params))
	at := 0
	for i, p := range k.Params {
		align := max(p.Align, 1)
		at = (at + align - 1) / align * align
		offs[i] = at
		at += p.Size
	}
	return offs
}

func argBytes(a any) ([]byte, error) {
	le := binary.LittleEndian
	switch v := a.(type) {
	case DevPtr:
		return le.AppendUint64(nil, uint64(v)), nil
	case uint64:
		return le.AppendUint64(nil, v), nil
	case int64:
		return le.AppendUint64(nil, uint64(v)), nil
	case uint32:
		return le.AppendUint32(nil, v), nil
	case int32:
		return le.AppendUint32(nil, uint32(v)), nil
	case int:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, fmt.Errorf("int %d does not fit a 32-bit parameter; pass int64 explicitly", v)
		}
		return le.AppendUint32(nil, uint32(int32(v))), nil
	case uint16:
		return le.AppendUint16(nil, v), nil
	case int16:
		return le.AppendUint16(nil, uint16(v)), nil
	case uint8:
		return []byte{v}, nil
	case int8:
		return []byte{byte(v)}, nil
	case float32:
		return le.AppendUint32(nil, math.Float32bits(v)), nil
	case float64:
		return le.AppendUint64(nil, math.Float64bits(v)), nil
	default:
		return nil, fmt.Errorf("unsupported argument type %T", a)
	}
}
