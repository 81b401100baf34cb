//go:build !cgo

package hw

import (
	"context"
	"fmt"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// Without cgo there is no way to reach the driver: the package still
// builds (so CGO_ENABLED=0 builds of the command work), and Open reports
// ErrNoDriver like a machine without a GPU.
var errNoCgo = fmt.Errorf("%w: warpgraph was built without cgo (CGO_ENABLED=0)", ErrNoDriver)

// Device is a CUDA GPU; without cgo none can be opened.
type Device struct{}

var _ kernels.Device = (*Device)(nil)

// Open reports ErrNoDriver: this binary was built without cgo.
func Open(ordinal int) (*Device, error) { return nil, errNoCgo }

// ListDevices reports ErrNoDriver: this binary was built without cgo.
func ListDevices() ([]kernels.Properties, error) { return nil, errNoCgo }

// DriverVersion reports ErrNoDriver: this binary was built without cgo.
func DriverVersion() (major, minor int, err error) { return 0, 0, errNoCgo }

func (d *Device) Ordinal() int                                      { return 0 }
func (d *Device) Properties() kernels.Properties                    { return kernels.Properties{} }
func (d *Device) DriverVersion() (major, minor int)                 { return 0, 0 }
func (d *Device) MemInfo() (free, total uint64, err error)          { return 0, 0, errNoCgo }
func (d *Device) Load(k *kernels.Kernel) error                      { return errNoCgo }
func (d *Device) JITLog(m *kernels.Module) (string, error)          { return "", errNoCgo }
func (d *Device) Alloc(bytes int) (kernels.DevPtr, error)           { return 0, errNoCgo }
func (d *Device) Free(p kernels.DevPtr) error                       { return errNoCgo }
func (d *Device) CopyToDevice(dst kernels.DevPtr, src []byte) error { return errNoCgo }
func (d *Device) CopyFromDevice(dst []byte, src kernels.DevPtr) error {
	return errNoCgo
}
func (d *Device) Memset(p kernels.DevPtr, value byte, bytes int) error { return errNoCgo }
func (d *Device) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	return kernels.LaunchStats{}, errNoCgo
}
func (d *Device) Occupancy(k *kernels.Kernel, blockThreads, dynamicSmem int) (int, error) {
	return 0, errNoCgo
}
func (d *Device) Attributes(k *kernels.Kernel) (kernels.KernelAttrs, error) {
	return kernels.KernelAttrs{}, errNoCgo
}
func (d *Device) Close() error { return nil }

// System is several CUDA devices of one host; without cgo none can be
// opened.
type System struct{}

var (
	_ kernels.System      = (*System)(nil)
	_ kernels.PeerSystem  = (*System)(nil)
	_ kernels.LinkCounter = (*System)(nil)
)

// OpenSystem reports ErrNoDriver: this binary was built without cgo.
func OpenSystem(ordinals []int) (*System, error) { return nil, errNoCgo }

func (s *System) PeerAccess(i, j int) bool  { return false }
func (s *System) Devices() []kernels.Device { return nil }
func (s *System) Parallel(f func(i int, dev kernels.Device) error) error {
	return errNoCgo
}
func (s *System) CopyPeer(copies []kernels.PeerCopy) error { return errNoCgo }
func (s *System) CoLaunch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args [][]any) (kernels.LaunchStats, error) {
	return kernels.LaunchStats{}, errNoCgo
}
func (s *System) LinkStats() kernels.LinkStats { return kernels.LinkStats{} }
func (s *System) Clock() time.Duration         { return 0 }
func (s *System) Link() string                 { return "" }
func (s *System) Close() error                 { return nil }
