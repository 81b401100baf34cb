package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverrideSetsOnlyItsKeys: an inline override loads as its base with
// the named keys changed, top-level and nested, and is named by itself.
func TestOverrideSetsOnlyItsKeys(t *testing.T) {
	const name = "h100+sms=16+memory.l2_slices=20+memory.atomic_ops_per_cycle=0.165+sm.scheduling_policy=lrr"
	got, err := LoadConfig(name)
	require.NoError(t, err)

	want, err := LoadConfig("h100")
	require.NoError(t, err)
	want.Name = name
	want.SMs = 16
	want.Memory.L2Slices = 20
	want.Memory.AtomicOpsPerCycle = 0.165
	want.SM.SchedulingPolicy = "lrr"
	want.Source = name
	want.Bases = []string{"configs/h100.yaml"}
	want.Overrides = []string{"sms=16", "memory.l2_slices=20", "memory.atomic_ops_per_cycle=0.165", "sm.scheduling_policy=lrr"}
	assert.Contains(t, got.Description, "h100 with sms=16, memory.l2_slices=20")
	want.Description = got.Description
	assert.Equal(t, want, got)
}

// TestLongOverride: an override longer than a file name may be (255 bytes)
// loads as any other; looking for a file of that name first must not fail
// it.
func TestLongOverride(t *testing.T) {
	name := "h100+memory.l2_hash_skip_bit=9+sm.atomic_slice_packets=true+memory.atomic_packet_line_cycles=1.5" +
		"+memory.atomic_packet_sector_cycles=1.8+memory.atomic_same_address_cycles=4.5+memory.atomic_same_line_cycles=2.5" +
		"+memory.atomic_one_word_cycles=1.25+memory.atomic_one_word_open_line_only=true"
	require.Greater(t, len(name), 255)
	got, err := LoadConfig(name)
	require.NoError(t, err)
	assert.Equal(t, 1.25, got.Memory.AtomicOneWordCycles)
	assert.True(t, got.Memory.AtomicOneWordOpenLineOnly)
	assert.Equal(t, uint(9), uint(got.Memory.L2HashSkipBit))
}

// TestOverrideOfAFile: the base may be a YAML file, itself on a base.
func TestOverrideOfAFile(t *testing.T) {
	got, err := LoadConfig("testdata/configs/h100-16sms.yaml+sms=8")
	require.NoError(t, err)
	assert.Equal(t, 8, got.SMs)
	assert.Equal(t, 4, got.SM.SharedPassCycles, "from the file")
	assert.Equal(t, "testdata/configs/h100-16sms.yaml+sms=8", got.Name)
	require.Len(t, got.Bases, 2)
	assert.Equal(t, "configs/h100.yaml", got.Bases[1])
}

// TestOverrideStringValues: a string key takes any allowed word, digits
// included, and an empty value where the key allows "".
func TestOverrideStringValues(t *testing.T) {
	got, err := LoadConfig("h100+attrs_gpu=")
	require.NoError(t, err)
	assert.Equal(t, "", got.AttrsGPU)
	got, err = LoadConfig("tiny+attrs_gpu=100")
	require.NoError(t, err)
	assert.Equal(t, "100", got.AttrsGPU)
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name, config string
		want         []string
	}{
		{"unknown key", "h100+smz=16", []string{`"h100+smz=16"`, `unknown key "smz"`}},
		{"leaf of a path", "h100+l2_slices=20", []string{`unknown key "l2_slices"`, "did you mean memory.l2_slices?"}},
		{"section", "h100+memory=1", []string{`unknown key "memory"`}},
		{"not an integer", "h100+sms=many", []string{"sms=many: want an integer"}},
		{"fraction for an integer", "h100+memory.l2_slices=2.5", []string{"memory.l2_slices=2.5: want an integer"}},
		{"not a number", "h100+memory.atomic_ops_per_cycle=fast", []string{"memory.atomic_ops_per_cycle=fast: want a number"}},
		{"negative unsigned", "h100+global_mem_bytes=-1", []string{"global_mem_bytes=-1: want a non-negative integer"}},
		{"list", "h100+compute_capability=8", []string{"compute_capability=8", "cannot be set inline"}},
		{"twice", "h100+sms=16+sms=32", []string{`key "sms" is given twice`}},
		{"name", "h100+name=x", []string{"name cannot be overridden inline"}},
		{"no key", "h100+=3", []string{`"=3" is not KEY=VALUE`}},
		{"no value separator", "h100+sms=16+fast", []string{`"fast" is not KEY=VALUE`}},
		{"character", "h100+sms=16;x=1", []string{`character ';' is not allowed`}},
		{"no base", "+sms=16", []string{"no base"}},
		{"unknown base", "h10+sms=16", []string{`base "h10" is neither a shipped configuration`, "h100"}},
		{"validated", "h100+sms=0", []string{"h100+sms=0: ", "sms must be positive, got 0"}},
		{"enumeration", "h100+sm.scheduling_policy=fifo", []string{"scheduling_policy", "fifo"}},
		{"residency consistency", "h100+max_warps_per_sm=30", []string{
			"max_warps_per_sm (30) holds fewer than max_threads_per_sm (2048) threads",
			"max_warps_per_sm (30) must be a multiple of sm.warp_schedulers (4)"}},
		{"parts agree", "h100+memory.sector_size_bytes=64", []string{"sm.coalesce_sector_bytes (32) must equal memory.sector_size_bytes (64)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfig(tc.config)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestOverrideSpelling: what counts as an override, and a file whose name
// looks like one still loads as the file.
func TestOverrideSpelling(t *testing.T) {
	assert.True(t, isOverride("h100+sms=16"))
	assert.False(t, isOverride("h100"))
	assert.False(t, isOverride("dir+x/h100.yaml"))
	assert.True(t, overrideNamePattern.MatchString("h100+sms=16+memory.atomic_ops_per_cycle=0.165"))
	assert.False(t, overrideNamePattern.MatchString("h100"), "a plain name is no override")

	dir := t.TempDir()
	path := filepath.Join(dir, "h100+sms=16")
	require.NoError(t, os.WriteFile(path, []byte("base: tiny\nname: from-file\n"), 0o644))
	got, err := LoadConfig(path)
	require.NoError(t, err)
	assert.Equal(t, "from-file", got.Name)
	assert.Empty(t, got.Overrides)
}

// TestOpenOverride: the device runs the overridden machine under the
// override's name.
func TestOpenOverride(t *testing.T) {
	dev, err := Open("tiny+sms=1", WithMode(ModeFunctional))
	require.NoError(t, err)
	defer dev.Close()
	assert.Equal(t, 1, dev.Properties().SMs)
	assert.Contains(t, dev.Properties().Name, "tiny+sms=1")
}

// TestConfigWithinBuildLimits: the SM limits that the timing model, the
// memory system and the functional grid (a block's threads) enforce when
// they are built are checked when the
// configuration is read, so functional mode, which builds neither, refuses
// the configuration too; the limits themselves are accepted.
func TestConfigWithinBuildLimits(t *testing.T) {
	tests := []struct {
		config string
		want   string // "" when the configuration loads
	}{
		{"h100+sms=1000000000", `sms (1000000000) exceeds 256, the most that memory.coherence "l1" supports`},
		{"h100+sms=500000", `sms (500000) exceeds 256, the most that memory.coherence "l1" supports`},
		{"h100+sms=257", `sms (257) exceeds 256`},
		{"h100+sms=256", ""},
		{"gtx780ti+sms=524288", "sms (524288) exceeds 524287, the most the timing model holds"},
		{"gtx780ti+sms=1000000000", "the most the timing model holds"},
		{"gtx780ti+sms=524287", ""},
		{"h100+max_threads_per_cta=2048", "max_threads_per_cta (2048) exceeds 1024, the most a block holds"},
		{"h100+max_threads_per_cta=1024", ""},
	}
	for _, tc := range tests {
		t.Run(tc.config, func(t *testing.T) {
			_, err := LoadConfig(tc.config)
			dev, openErr := Open(tc.config, WithMode(ModeFunctional))
			if tc.want == "" {
				require.NoError(t, err)
				require.NoError(t, openErr)
				require.NoError(t, dev.Close())
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
			require.Error(t, openErr, "functional mode refuses it too")
			assert.Contains(t, openErr.Error(), tc.want)
		})
	}
}

// TestConfigDigest: the digest follows the effective values, not the name
// or how they were spelt.
func TestConfigDigest(t *testing.T) {
	digest := func(name string) string {
		t.Helper()
		c, err := LoadConfig(name)
		require.NoError(t, err)
		return c.Digest()
	}
	h100 := digest("h100")
	assert.Regexp(t, `^sha256:[0-9a-f]{16}$`, h100)
	assert.Equal(t, h100, digest("h100"), "stable")
	assert.Equal(t, h100, digest("h100+sms=132"), "the same values under another name")
	assert.NotEqual(t, h100, digest("h100+sms=16"))
	assert.NotEqual(t, h100, digest("h100+memory.l2_slices=20"), "a nested value")
	assert.NotEqual(t, h100, digest("h100+host.launch_ns=1"), "a host cost")
	assert.NotEqual(t, h100, digest("v100"))
}
