package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/hw"
	"github.com/warpgraph/warpgraph/kernels"
)

// buildCommit is set by `make device-build` (-ldflags -X) so that tables
// measured on the GPU machine, which has no git, name the commit.
var buildCommit = "unknown"

func init() { extraCommands = append(extraCommands, newDevicesCommand) }

func newDevicesCommand() *cobra.Command {
	var attrsPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "devices [--kernel-attrs FILE.json]",
		Short: "List the CUDA devices the driver sees; optionally measure every kernel's registers, shared memory and occupancy",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			devs, err := hw.ListDevices()
			if err != nil {
				if errors.Is(err, hw.ErrNoDriver) {
					return fmt.Errorf("no CUDA driver on this machine: %w", err)
				}
				return err
			}
			major, minor, _ := hw.DriverVersion()
			if asJSON {
				if err := writeJSON(out, map[string]any{"driver": fmt.Sprintf("%d.%d", major, minor), "devices": devs, "provenance": newProvenance("", nil)}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "CUDA driver %d.%d, %d device(s)\n", major, minor, len(devs))
				for i, p := range devs {
					writeProperties(out, i, p)
				}
				if len(devs) > 1 {
					if err := writePeerAccess(out, len(devs)); err != nil {
						return err
					}
				}
			}
			if attrsPath == "" {
				return nil
			}
			return measureKernelAttrs(cmd, attrsPath, fmt.Sprintf("%d.%d", major, minor))
		},
	}
	cmd.Flags().StringVar(&attrsPath, "kernel-attrs", "", "measure every kernel on device 0 and write the table (e.g. kernels/attrs/h100.json; the file name is the GPU's short name)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func writeProperties(w interface{ Write([]byte) (int, error) }, i int, p kernels.Properties) {
	t := &table{}
	t.add(fmt.Sprintf("[%d]", i), p.Name)
	t.add("  compute capability", fmt.Sprintf("%d.%d", p.ComputeCapability[0], p.ComputeCapability[1]))
	t.add("  SMs", p.SMs)
	t.add("  clock", fmt.Sprintf("%d MHz", p.ClockKHz/1000))
	t.add("  memory", fmt.Sprintf("%.1f GiB", float64(p.GlobalMemBytes)/(1<<30)))
	t.add("  registers", fmt.Sprintf("%d per SM, %d per CTA", p.RegistersPerSM, p.RegistersPerCTA))
	t.add("  shared memory", fmt.Sprintf("%d B per SM, %d B per CTA", p.SharedMemPerSM, p.SharedMemPerCTA))
	t.add("  threads", fmt.Sprintf("%d per SM, %d per CTA", p.MaxThreadsPerSM, p.MaxThreadsPerCTA))
	t.add("  CTAs per SM", p.MaxCTAsPerSM)
	_ = t.write(w)
}

func measureKernelAttrs(cmd *cobra.Command, path, driver string) error {
	gpu := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	dev, err := hw.Open(0)
	if err != nil {
		return err
	}
	defer dev.Close()
	table, err := kernels.MeasureAttrs(dev, gpu)
	if err != nil {
		return err
	}
	table.Driver = driver
	table.Commit = buildCommit
	table.Date = time.Now().UTC().Format(time.RFC3339)
	table.Command = "warpgraph devices --kernel-attrs " + path
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := table.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d kernels measured on %s\n", path, len(table.Kernels), table.Device)
	return nil
}

// writePeerAccess opens every device as one system and prints which pairs
// the driver gives peer access (a kernel on one may read the other's
// memory, and copies go directly between them).
func writePeerAccess(w io.Writer, n int) error {
	ordinals := make([]int, n)
	for i := range ordinals {
		ordinals[i] = i
	}
	sys, err := hw.OpenSystem(ordinals)
	if err != nil {
		return err
	}
	defer sys.Close()
	fmt.Fprintf(w, "peer access (row: from, column: to); link: %s\n", sys.Link())
	header := "     "
	for j := range n {
		header += fmt.Sprintf(" [%d]", j)
	}
	fmt.Fprintln(w, header)
	for i := range n {
		line := fmt.Sprintf("  [%d]", i)
		for j := range n {
			cell := "  - "
			if i != j {
				cell = "  no"
				if sys.PeerAccess(i, j) {
					cell = " yes"
				}
			}
			line += cell
		}
		fmt.Fprintln(w, line)
	}
	return nil
}
