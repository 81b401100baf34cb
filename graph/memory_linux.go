package graph

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// systemMemoryBounds reads the process's memory bounds on Linux: RLIMIT_AS
// against the process's mapped size (VmSize: Go reserves address space
// ahead of use, and every mapping counts against the limit), the memory
// limit of its cgroup or of any cgroup above it (v2's memory.max, v1's
// memory.limit_in_bytes) against that cgroup's usage, and MemAvailable.
func systemMemoryBounds() []MemoryBound {
	var bounds []MemoryBound
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err == nil && lim.Cur != ^uint64(0) {
		used, _ := procStatusBytes("/proc/self/status", "VmSize:")
		bounds = append(bounds, MemoryBound{Name: "RLIMIT_AS", Limit: lim.Cur, Used: used})
	}
	if b, ok := cgroupMemoryBound(); ok {
		bounds = append(bounds, b)
	}
	if avail, ok := procStatusBytes("/proc/meminfo", "MemAvailable:"); ok {
		bounds = append(bounds, MemoryBound{Name: "MemAvailable", Limit: avail})
	}
	return bounds
}

// procStatusBytes reads a "Key: N kB" line of a /proc file.
func procStatusBytes(path, key string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(f) > 1 && f[1] == "kB" {
			v *= 1024
		}
		return v, true
	}
	return 0, false
}

// noCgroupLimit: cgroup v1 reports "no limit" as a page-rounded 2^63-1.
const noCgroupLimit = 1 << 62

// cgroupMemoryBound finds the tightest memory limit of the process's
// cgroup and its ancestors (the one with the least left), under cgroup v2
// or v1 mounted at their usual places.
func cgroupMemoryBound() (MemoryBound, bool) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return MemoryBound{}, false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
				if b, ok := tightestCgroup(root, parts[2], "memory.max", "memory.current", "cgroup memory.max"); ok {
					return b, true
				}
			}
		case strings.Contains(","+parts[1]+",", ",memory,"):
			if b, ok := tightestCgroup("/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes", "memory.usage_in_bytes", "cgroup memory.limit_in_bytes"); ok {
				return b, true
			}
		}
	}
	return MemoryBound{}, false
}

// tightestCgroup walks from the cgroup at path up to root's top and
// returns the limit with the least left; false when none is set.
func tightestCgroup(root, path, limitFile, usageFile, name string) (MemoryBound, bool) {
	var best MemoryBound
	found := false
	for dir := filepath.Join(root, path); ; dir = filepath.Dir(dir) {
		if limit, ok := readCgroupValue(filepath.Join(dir, limitFile)); ok && limit < noCgroupLimit {
			used, _ := readCgroupValue(filepath.Join(dir, usageFile))
			b := MemoryBound{Name: name, Limit: limit, Used: used}
			if !found || b.Free() < best.Free() {
				best, found = b, true
			}
		}
		if len(dir) <= len(root) {
			return best, found
		}
	}
}

// readCgroupValue reads a cgroup file holding a number ("max": none).
func readCgroupValue(path string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return v, err == nil
}
