package sim

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/timing"
	"go.yaml.in/yaml/v3"
)

func TestLoadEmbeddedConfigs(t *testing.T) {
	assert.Equal(t, []string{"gtx780ti", "gtx780ti-x2-pcie", "gtx780ti-x4-pcie", "h100", "h100-x8-nvlink", "h200", "h200-x8-nvlink", "tiny", "tiny-x4", "v100"}, embeddedConfigNames())
	for _, name := range embeddedConfigNames() {
		t.Run(name, func(t *testing.T) {
			f, err := LoadConfig(name)
			require.NoError(t, err)
			assert.Equal(t, name, f.Name)
			assert.Equal(t, "configs/"+name+".yaml", f.Source)
			assert.NotEmpty(t, f.Description)
			require.NoError(t, f.Validate())
			require.NoError(t, f.SM.Validate())
			require.NoError(t, f.Memory.Validate())
		})
	}

	h, err := LoadConfig("h100")
	require.NoError(t, err)
	assert.Equal(t, [2]int{9, 0}, h.ComputeCapability)
	assert.Equal(t, 132, h.SMs)
	assert.Equal(t, 1980, h.ClockMHz)
	assert.Equal(t, 228<<10, h.SharedMemPerSM)
	assert.Equal(t, 48<<10, h.SharedMemPerCTA)
	assert.Equal(t, 227<<10, h.SharedMemPerCTAOptIn)
	assert.Equal(t, 1<<10, h.SharedMemReservedPerCTA)
	assert.Equal(t, 256, h.RegisterAllocUnit)
	assert.Equal(t, 50<<20, h.Memory.L2Slices*h.Memory.L2SliceSizeBytes)
	assert.Equal(t, timing.SharedAtomicNative, h.SM.SharedAtomicModel)

	v, err := LoadConfig("v100")
	require.NoError(t, err)
	assert.Equal(t, [2]int{7, 0}, v.ComputeCapability)
	assert.Equal(t, 80, v.SMs)
	assert.Equal(t, 6<<20, v.Memory.L2Slices*v.Memory.L2SliceSizeBytes)

	k, err := LoadConfig("gtx780ti")
	require.NoError(t, err)
	assert.Equal(t, [2]int{3, 5}, k.ComputeCapability)
	assert.Equal(t, 15, k.SMs)
	assert.Equal(t, 16, k.MaxCTAsPerSM)
	assert.Equal(t, 2048, k.MaxThreadsPerSM)
	assert.Equal(t, 65536, k.RegistersPerSM)
	assert.Equal(t, 48<<10, k.SharedMemPerSM)
	assert.Equal(t, 1536<<10, k.Memory.L2Slices*k.Memory.L2SliceSizeBytes)
	assert.Equal(t, timing.SharedAtomicLock, k.SM.SharedAtomicModel)
}

// TestTinyIsSmall keeps the configuration `make test` uses cheap to
// simulate and honest about being made up.
func TestTinyIsSmall(t *testing.T) {
	f, err := LoadConfig("tiny")
	require.NoError(t, err)
	assert.LessOrEqual(t, f.SMs, 2)
	assert.LessOrEqual(t, f.MaxThreadsPerSM, 1024)
	assert.LessOrEqual(t, f.MaxCTAsPerSM, 4)
	assert.LessOrEqual(t, f.SM.WarpSchedulers, 2)
	assert.LessOrEqual(t, f.SM.DeadlockWindowCycles, 100_000)
	assert.LessOrEqual(t, f.Memory.L2Slices, 4)
	assert.LessOrEqual(t, f.Memory.L2Slices*f.Memory.L2SliceSizeBytes, 256<<10)
	assert.LessOrEqual(t, f.Memory.L1SizeBytes, 16<<10)
	assert.LessOrEqual(t, f.GlobalMemBytes, uint64(1<<30))
	assert.Empty(t, f.AttrsGPU)
	assert.Contains(t, strings.ToLower(f.Description), "illustrative")
	// Every number in it says it is illustrative.
	data, err := configFS.ReadFile("configs/tiny.yaml")
	require.NoError(t, err)
	for _, v := range valueComments(t, data) {
		if strings.HasPrefix(v.comment, "unused:") || v.key == "name" || v.key == "description" {
			continue
		}
		assert.True(t, strings.HasPrefix(v.comment, "illustrative"), "tiny.yaml:%d %s: %q is not marked illustrative", v.line, v.key, v.comment)
	}
}

// TestEmbeddedConfigsSetEveryKey: a shipped configuration leaves nothing
// to a zero default, so a field added to Config, timing.SMConfig or
// memsys.Config fails here until every file sets (and cites) it. A file
// with a base (a shipped one) counts its base chain's keys too; an
// optional section (system) may be left out whole, but a file that has it
// sets every key in it.
func TestEmbeddedConfigsSetEveryKey(t *testing.T) {
	// fileKeys is the set of keys a shipped file and its base chain set.
	var fileKeys func(t *testing.T, name string) map[string]bool
	fileKeys = func(t *testing.T, name string) map[string]bool {
		data, err := configFS.ReadFile("configs/" + name + ".yaml")
		require.NoError(t, err)
		var root yaml.Node
		require.NoError(t, yaml.Unmarshal(data, &root))
		have := map[string]bool{}
		base := ""
		walkKeys(&root, func(p string, _, v *yaml.Node) bool {
			have[p] = true
			if p == "base" {
				base = v.Value
			}
			return true
		})
		if base != "" {
			require.Contains(t, embeddedConfigNames(), base, "%s.yaml's base", name)
			for k := range fileKeys(t, base) {
				have[k] = true
			}
		}
		return have
	}
	for _, name := range embeddedConfigNames() {
		t.Run(name, func(t *testing.T) {
			have := fileKeys(t, name)
			for _, k := range configSchema {
				if k.section != "" && !have[k.section] {
					continue
				}
				assert.True(t, have[k.path], "%s.yaml does not set %s", name, k.path)
			}
		})
	}
}

// citationMarkers are the comment prefixes that stand in for a source: a
// reasoned estimate, a value fitted to a published result, a made-up
// value of the tiny configuration, or a field the chosen model ignores.
var citationMarkers = []string{"estimate:", "calibrated:", "illustrative", "unused:"}

var (
	sourceDefinition = regexp.MustCompile(`^#\s*\[([A-Z][A-Z0-9-]*)\]\s+\S`)
	sourceReference  = regexp.MustCompile(`\[([A-Z][A-Z0-9-]*)\]`)
	hasDigit         = regexp.MustCompile(`[0-9]`)
)

// TestEmbeddedConfigValuesAreCited: every value that carries a number has
// a comment on its line naming a source defined in the file's header
// ("[KEY] ..."), or saying it is an estimate, calibrated, illustrative or
// unused. Uncited numbers fail the build.
func TestEmbeddedConfigValuesAreCited(t *testing.T) {
	for _, name := range embeddedConfigNames() {
		t.Run(name, func(t *testing.T) {
			data, err := configFS.ReadFile("configs/" + name + ".yaml")
			require.NoError(t, err)
			defined := map[string]bool{}
			for _, line := range strings.Split(string(data), "\n") {
				if m := sourceDefinition.FindStringSubmatch(line); m != nil {
					defined[m[1]] = true
				}
			}
			used := map[string]bool{}
			for _, v := range valueComments(t, data) {
				refs := sourceReference.FindAllStringSubmatch(v.comment, -1)
				for _, r := range refs {
					assert.True(t, defined[r[1]], "%s.yaml:%d %s cites [%s], which the header does not define", name, v.line, v.key, r[1])
					used[r[1]] = true
				}
				if !hasDigit.MatchString(v.value) || v.key == "name" || v.key == "description" || v.key == "base" {
					continue
				}
				marked := slices.ContainsFunc(citationMarkers, func(m string) bool { return strings.Contains(v.comment, m) })
				assert.True(t, len(refs) > 0 || marked,
					"%s.yaml:%d %s: %s has no source: its comment must cite a [KEY] of the header or say estimate:, calibrated:, illustrative or unused: (got %q)",
					name, v.line, v.key, v.value, v.comment)
			}
			for k := range defined {
				assert.True(t, used[k], "%s.yaml defines source [%s] but no value cites it", name, k)
			}
		})
	}
}

type valueComment struct {
	line         int
	key, value   string
	comment      string
	isCollection bool
}

// valueComments lists every scalar or flow-sequence value of a document
// with its dotted key and its line comment (without the leading "# ").
func valueComments(t *testing.T, data []byte) []valueComment {
	t.Helper()
	var root yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &root))
	var out []valueComment
	walkKeys(&root, func(p string, k, v *yaml.Node) bool {
		if v.Kind == yaml.MappingNode {
			return true
		}
		val := v.Value
		if v.Kind == yaml.SequenceNode {
			var parts []string
			for _, c := range v.Content {
				parts = append(parts, c.Value)
			}
			val = "[" + strings.Join(parts, ", ") + "]"
		}
		c := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v.LineComment+" "+k.LineComment), "#"))
		out = append(out, valueComment{line: k.Line, key: p, value: val, comment: c, isCollection: v.Kind == yaml.SequenceNode})
		return false
	})
	return out
}

// TestConfigsReadmeDocumentsEveryKey keeps configs/README.md's table
// complete.
func TestConfigsReadmeDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile("configs/README.md")
	require.NoError(t, err)
	readme := string(data)
	for _, k := range configKeyPaths() {
		assert.Contains(t, readme, "`"+k+"`", "configs/README.md does not document %s", k)
	}
}

// writeConfig writes a variant of a shipped configuration, with the lines
// of edit replaced (by "key:" prefix at any indentation) or appended.
func writeConfig(t *testing.T, base string, edit func(string) string) string {
	t.Helper()
	data, err := configFS.ReadFile("configs/" + base + ".yaml")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "custom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(edit(string(data))), 0o644))
	return path
}

// replaceLine replaces the first line whose trimmed text starts with key.
func replaceLine(s, key, with string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), key) {
			indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
			lines[i] = indent + with
			return strings.Join(lines, "\n")
		}
	}
	panic("no line " + key)
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(string) string
		want []string
	}{
		{
			name: "unknown top-level key",
			edit: func(s string) string { return replaceLine(s, "sms:", "smz: 132") },
			want: []string{"custom.yaml:", `unknown key "smz"`},
		},
		{
			name: "unknown nested key",
			edit: func(s string) string { return replaceLine(s, "l1_ways:", "l1_wayz: 4") },
			want: []string{"custom.yaml:", `unknown key "memory.l1_wayz"`},
		},
		{
			name: "unknown key in a class",
			edit: func(s string) string {
				i := strings.Index(s, "  float32:")
				return s[:i] + replaceLine(s[i:], "interval:", "intervall: 1")
			},
			want: []string{"custom.yaml:", `unknown key "sm.float32.intervall"`},
		},
		{
			name: "wrong type",
			edit: func(s string) string { return replaceLine(s, "sms:", "sms: many") },
			want: []string{"custom.yaml:", "sms:", "cannot unmarshal"},
		},
		{
			name: "repeated key",
			edit: func(s string) string { return s + "\nsms: 12\n" },
			want: []string{"custom.yaml", `"sms" already defined`},
		},
		{
			name: "device limit",
			edit: func(s string) string { return replaceLine(s, "sms:", "sms: 0") },
			want: []string{"custom.yaml:", "sms must be positive"},
		},
		{
			name: "device consistency",
			edit: func(s string) string { return replaceLine(s, "shared_mem_per_cta:", "shared_mem_per_cta: 1000000") },
			want: []string{"custom.yaml:", "shared_mem_per_cta (1000000) exceeds shared_mem_per_sm"},
		},
		{
			name: "sm field",
			edit: func(s string) string { return replaceLine(s, "scheduling_policy:", "scheduling_policy: fifo") },
			want: []string{"custom.yaml:", "sm:", "scheduling_policy", "fifo"},
		},
		{
			name: "memory field",
			edit: func(s string) string { return replaceLine(s, "l2_slices:", "l2_slices: -1") },
			want: []string{"custom.yaml:", "memory:", "l2_slices must be positive"},
		},
		{
			name: "host field",
			edit: func(s string) string { return replaceLine(s, "sync_ns:", "sync_ns: -1") },
			want: []string{"custom.yaml:", "host.sync_ns must not be negative, got -1"},
		},
		{
			name: "host bandwidth",
			edit: func(s string) string { return replaceLine(s, "copy_bytes_per_ns:", "copy_bytes_per_ns: -2") },
			want: []string{"custom.yaml:", "host.copy_bytes_per_ns must be a finite number >= 0"},
		},
		{
			name: "parts disagree",
			edit: func(s string) string { return replaceLine(s, "coalesce_sector_bytes:", "coalesce_sector_bytes: 64") },
			want: []string{"custom.yaml:", "sm.coalesce_sector_bytes (64) must equal memory.sector_size_bytes (32)"},
		},
		{
			name: "missing description",
			edit: func(s string) string {
				return regexp.MustCompile(`(?s)description: >-\n.*?\n\n`).ReplaceAllString(s, "description: \"\"\n\n")
			},
			want: []string{"custom.yaml:", "description is missing"},
		},
		{
			name: "bad name",
			edit: func(s string) string { return replaceLine(s, "name:", "name: My GPU") },
			want: []string{"custom.yaml:", "name must be"},
		},
		{
			name: "two documents",
			edit: func(s string) string { return s + "\n---\nname: other\n" },
			want: []string{"custom.yaml:", "more than one YAML document"},
		},
		{
			name: "empty",
			edit: func(string) string { return "# nothing\n" },
			want: []string{"custom.yaml:", "empty configuration"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, "h100", tc.edit)
			_, err := LoadConfig(path)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}

	_, err := LoadConfig("a100")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no simulator configuration named "a100"`)
	assert.Contains(t, err.Error(), "gtx780ti, gtx780ti-x2-pcie, gtx780ti-x4-pcie, h100, h100-x8-nvlink, h200, h200-x8-nvlink, tiny, tiny-x4, v100")

	_, err = LoadConfig(filepath.Join(t.TempDir(), "missing.yaml"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.yaml")
}

// TestLoadConfigRoundTrip writes a configuration to a YAML file of its own
// and reads it back unchanged.
func TestLoadConfigRoundTrip(t *testing.T) {
	for _, name := range embeddedConfigNames() {
		t.Run(name, func(t *testing.T) {
			f, err := LoadConfig(name)
			require.NoError(t, err)
			f.Name = "my-" + name
			f.Description = "A variant of " + name + " with a larger L2."
			f.Memory.L2SliceSizeBytes *= 2
			data, err := yaml.Marshal(f)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "my.yaml")
			require.NoError(t, os.WriteFile(path, data, 0o644))
			g, err := LoadConfig(path)
			require.NoError(t, err)
			assert.Equal(t, path, g.Source)
			// The file written holds every key, so it names no base.
			assert.Empty(t, g.Bases)
			g.Source, g.Bases = f.Source, f.Bases
			assert.Equal(t, f, g)
		})
	}
}

// TestH100CoResidency checks the h100 residency limits against the CUDA
// occupancy rules (cuda_occupancy.h for compute capability 9.0: registers
// per warp rounded up to 256, shared memory per CTA plus the 1 KB
// reservation rounded up to 128 bytes) and against the co-resident limit our
// hardware backend measured for the global barrier: 16 CTAs of 128 threads
// per SM, 2112 on the H100's 132 SMs (`warpgraph micro global_barrier
// --target hw`, 2026-11-21: 2112 CTAs complete, 2113 are refused by the
// cooperative launch and exhaust the spin budget in a normal one).
func TestH100CoResidency(t *testing.T) {
	f, err := LoadConfig("h100")
	require.NoError(t, err)
	d, err := New(f.Config)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	k, err := kernels.Lookup("global_barrier")
	require.NoError(t, err)
	a, err := d.Attributes(k)
	require.NoError(t, err)

	n, err := d.Occupancy(k, 128, 0)
	require.NoError(t, err)
	assert.Equal(t, 16, n)
	assert.Equal(t, 2112, n*f.SMs)

	// The reference is cudaOccMaxActiveBlocksPerMultiprocessor of
	// cuda_occupancy.h for compute capability 9.0, for block sizes and
	// dynamic shared memory where warps, the CTA limit and shared memory
	// (with its 1 KB reservation and 128-byte granule) each decide. Its
	// register limit allocates whole warps in each of 4 sub-partitions,
	// which the simulator's residency does not model; with the kernel's 22
	// registers (kernels/attrs/h100.json) that limit never binds.
	ref := func(threads, dyn int) int {
		warps := (threads + 31) / 32
		n := min(32, 64/warps)
		regsPerWarp := (a.RegistersPerThread*32 + 255) / 256 * 256
		n = min(n, 65536/4/regsPerWarp*4/warps)
		if smem := a.StaticSharedMem + dyn + 1024; smem > 0 {
			n = min(n, 233472/((smem+127)/128*128))
		}
		return n
	}
	for _, c := range []struct{ threads, dyn int }{
		{32, 0}, {64, 0}, {128, 0}, {256, 0}, {1024, 0},
		{64, 13 << 10}, // 14 KB with the reservation: 16 CTAs; 17 without it
		{64, 6000},     // 7024 -> 7040 bytes: 33 by shared memory, 32 by the CTA limit
		{256, 40000},   // 41024 -> 41088 bytes: 5 CTAs
		{1024, 48 << 10},
	} {
		got, err := d.Occupancy(k, c.threads, c.dyn)
		require.NoError(t, err)
		assert.Equal(t, ref(c.threads, c.dyn), got, "%d threads, %d bytes of dynamic shared memory", c.threads, c.dyn)
	}
}
