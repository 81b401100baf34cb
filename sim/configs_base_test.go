package sim

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// writeFiles writes files (name to content) into a new directory and
// returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// withoutKey returns a shipped configuration's text with the key at the
// dotted path removed (comments and the other keys kept).
func withoutKey(t *testing.T, name, path string) []byte {
	t.Helper()
	data, err := configFS.ReadFile("configs/" + name + ".yaml")
	require.NoError(t, err)
	var root yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &root))
	m := root.Content[0]
	parts := strings.Split(path, ".")
	for i, part := range parts {
		j := -1
		for k := 0; k+1 < len(m.Content); k += 2 {
			if m.Content[k].Value == part {
				j = k
			}
		}
		require.GreaterOrEqual(t, j, 0, "%s.yaml has no key %s", name, path)
		if i == len(parts)-1 {
			m.Content = append(m.Content[:j], m.Content[j+2:]...)
			break
		}
		m = m.Content[j+1]
	}
	out, err := yaml.Marshal(&root)
	require.NoError(t, err)
	return out
}

// TestMissingKeyIsAnError: a key left out is an error naming the file and
// the key's full path, never a silent zero.
func TestMissingKeyIsAnError(t *testing.T) {
	tests := []struct {
		name   string
		remove string
		want   string
	}{
		// The four keys whose absence used to change cycles silently.
		{"cta launch", "sm.cta_launch_cycles", `missing key "sm.cta_launch_cycles"`},
		{"bank pass", "sm.shared_pass_cycles", `missing key "sm.shared_pass_cycles"`},
		{"same address", "memory.atomic_same_address_cycles", `missing key "memory.atomic_same_address_cycles"`},
		{"l1 model", "memory.l1_model", `missing key "memory.l1_model"`},
		{"top level", "sms", `missing key "sms"`},
		{"class field", "sm.float32.interval", `missing key "sm.float32.interval"`},
		{"whole class", "sm.barrier", `missing key "sm.barrier"`},
		{"zero means default", "memory.dram_queue_depth", `missing key "memory.dram_queue_depth"`},
		{"empty string", "attrs_gpu", `missing key "attrs_gpu"`},
		{"name", "name", `missing key "name"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "custom.yaml")
			require.NoError(t, os.WriteFile(path, withoutKey(t, "tiny", tc.remove), 0o644))
			_, err := LoadConfig(path)
			require.Error(t, err)
			assert.Equal(t, path+": "+tc.want, err.Error(), "one problem, naming the file and the key")
		})
	}
}

// TestEveryKeyIsRequired removes each key of the schema in turn: from
// tiny, or, for a key of the optional system section, from tiny-x4, whose
// section must then be whole.
func TestEveryKeyIsRequired(t *testing.T) {
	keys := configKeyPaths()
	require.Greater(t, len(keys), 80)
	for _, k := range configSchema {
		name, where := "tiny", ""
		if k.section != "" {
			name, where = "tiny-x4", " (set neither here nor in its base configs/tiny.yaml)"
		}
		_, err := ParseConfig(withoutKey(t, name, k.path), "custom.yaml")
		if assert.Error(t, err, k.path) {
			assert.Equal(t, `custom.yaml: missing key "`+k.path+`"`+where, err.Error())
		}
	}
	// The optional section may be left out whole.
	f, err := ParseConfig(withoutKey(t, "tiny-x4", "system"), "custom.yaml")
	require.NoError(t, err)
	assert.Equal(t, 1, f.System.MaxGPUs())
}

func TestMissingSectionIsOneError(t *testing.T) {
	for _, section := range []string{"sm", "memory"} {
		_, err := ParseConfig(withoutKey(t, "tiny", section), "custom.yaml")
		require.Error(t, err)
		assert.Equal(t, `custom.yaml: missing key "`+section+`"`, err.Error())
	}
}

// TestKeyWithoutValueIsAnError: "key:" with nothing after it decodes as a
// zero in YAML; the loader refuses it.
func TestKeyWithoutValueIsAnError(t *testing.T) {
	for _, edit := range []string{"shared_pass_cycles:", "shared_pass_cycles: ~", "shared_pass_cycles: null"} {
		path := writeConfig(t, "tiny", func(s string) string { return replaceLine(s, "shared_pass_cycles:", edit) })
		_, err := LoadConfig(path)
		require.Error(t, err, edit)
		assert.Regexp(t, `custom\.yaml:\d+: key "sm\.shared_pass_cycles" has no value`, err.Error(), edit)
	}
}

// TestOptionalTag checks the mechanism for optional keys on a made-up
// schema, and that the real schema's only optional part is the `system:`
// section (configs/README.md says so).
func TestOptionalTag(t *testing.T) {
	type inner struct {
		A int `yaml:"a"`
		B int `yaml:"b" config:"optional"`
	}
	type schema struct {
		Name  string `yaml:"name"`
		Inner inner  `yaml:"inner"`
		Extra inner  `yaml:"extra" config:"optional"`
		Skip  string `yaml:"-"`
	}
	keys := schemaKeys(reflect.TypeFor[schema](), "", "")
	assert.Equal(t, []schemaKey{
		{"name", false, ""}, {"inner.a", false, ""}, {"inner.b", true, ""}, {"extra.a", false, "extra"}, {"extra.b", true, "extra"},
	}, keys)
	assert.Equal(t, []string{"inner.a"}, missingKeys(map[string]any{"name": "x", "inner": map[string]any{}}, keys))
	assert.Equal(t, []string{"name", "inner"}, missingKeys(map[string]any{}, keys))
	assert.Empty(t, missingKeys(map[string]any{"name": "x", "inner": map[string]any{"a": 1}}, keys))
	// A section left out is fine; a section present needs its keys.
	assert.Equal(t, []string{"extra.a"}, missingKeys(map[string]any{"name": "x", "inner": map[string]any{"a": 1}, "extra": map[string]any{}}, keys))
	assert.Empty(t, missingKeys(map[string]any{"name": "x", "inner": map[string]any{"a": 1}, "extra": map[string]any{"a": 1}}, keys))

	for _, k := range configSchema {
		assert.False(t, k.optional, "%s is optional: update configs/README.md (\"Every key is required\")", k.path)
		if strings.HasPrefix(k.path, "system.") {
			assert.Equal(t, "system", k.section, k.path)
		} else {
			assert.Empty(t, k.section, "%s is in an optional section: update configs/README.md (\"Every key is required\")", k.path)
		}
	}
}

// TestBaseOverridesOnlyWhatItStates: a file on base h100 that changes the
// SM count and two nested keys loads with every other value of h100.
func TestBaseOverridesOnlyWhatItStates(t *testing.T) {
	dir := writeFiles(t, map[string]string{"h100-16.yaml": `
base: h100
name: h100-16sms
sms: 16
sm:
  shared_pass_cycles: 3
  float64:
    latency: 9
memory:
  dram_bandwidth_gb_per_s: 1000
`})
	path := filepath.Join(dir, "h100-16.yaml")
	got, err := LoadConfig(path)
	require.NoError(t, err)

	want, err := LoadConfig("h100")
	require.NoError(t, err)
	want.Name = "h100-16sms"
	want.SMs = 16
	want.SM.SharedPassCycles = 3
	want.SM.Float64.Latency = 9 // float64.interval stays h100's
	want.Memory.DRAMBandwidthGBPerS = 1000
	want.Source = path
	want.Bases = []string{"configs/h100.yaml"}
	assert.Equal(t, want, got)
}

// TestBaseChain: a file inherits through a chain of bases, each a path
// relative to the file that names it; the nearest layer wins.
func TestBaseChain(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"sweep/sms-1.yaml": "base: ../common/slow-dram.yaml\nname: tiny-1sm\nsms: 1\n",
		"common/slow-dram.yaml": "base: tiny\nname: tiny-slow-dram\n" +
			"sms: 4\nmemory: {dram_latency_cycles: 800, dram_bandwidth_gb_per_s: 64}\n",
	})
	f, err := LoadConfig(filepath.Join(dir, "sweep/sms-1.yaml"))
	require.NoError(t, err)
	tiny, err := LoadConfig("tiny")
	require.NoError(t, err)
	assert.Equal(t, "tiny-1sm", f.Name)
	assert.Equal(t, 1, f.SMs)
	assert.Equal(t, 800, f.Memory.DRAMLatency)
	assert.InDelta(t, 64, f.Memory.DRAMBandwidthGBPerS, 0)
	assert.Equal(t, tiny.Memory.L2HitLatency, f.Memory.L2HitLatency)
	assert.Equal(t, tiny.Description, f.Description, "description is inherited")
	assert.Equal(t, []string{filepath.Join(dir, "common/slow-dram.yaml"), "configs/tiny.yaml"}, f.Bases)

	// A scalar keeps its file's spelling: YAML reads 0x10 as a number, but
	// name is a string.
	dir = writeFiles(t, map[string]string{"hex.yaml": "base: tiny\nname: 0x10\n"})
	f, err = LoadConfig(filepath.Join(dir, "hex.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "0x10", f.Name)

	// A sequence is replaced whole, not merged item by item.
	dir = writeFiles(t, map[string]string{"cc.yaml": "base: h100\nname: cc\ncompute_capability: [8, 0]\n"})
	f, err = LoadConfig(filepath.Join(dir, "cc.yaml"))
	require.NoError(t, err)
	assert.Equal(t, [2]int{8, 0}, f.ComputeCapability)

	// ParseConfig resolves a base path against the source's directory.
	f, err = ParseConfig([]byte("base: common/slow-dram.yaml\nname: p\n"), filepath.Join(filepath.Dir(filepath.Dir(f.Source)), "x.yaml"))
	require.Error(t, err, "the previous dir has no common/")
	dir = writeFiles(t, map[string]string{"common/slow-dram.yaml": "base: tiny\nname: s\nsms: 1\n"})
	f, err = ParseConfig([]byte("base: common/slow-dram.yaml\nname: p\n"), filepath.Join(dir, "x.yaml"))
	require.NoError(t, err)
	assert.Equal(t, 1, f.SMs)
}

// TestBaseFragment: a base need not be complete (it may set only a few
// keys), but the chain must set every key in the end.
func TestBaseFragment(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"fragment.yaml": "memory: {l1_model: akita_writearound}\n",
		"a.yaml":        "base: fragment.yaml\nname: a\nsms: 4\n",
	})
	_, err := LoadConfig(filepath.Join(dir, "a.yaml"))
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, filepath.Join(dir, "a.yaml")+`: missing key "description" (set neither here nor in its base `+filepath.Join(dir, "fragment.yaml")+")")
	assert.Contains(t, msg, `missing key "sm"`)
	assert.Contains(t, msg, `missing key "memory.line_size_bytes"`)
	assert.NotContains(t, msg, `"sms"`)
	assert.NotContains(t, msg, `"memory.l1_model"`)
}

// TestAliasesCountAsSet: YAML anchors and merge keys set the keys they
// expand to.
func TestAliasesCountAsSet(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.yaml": `
base: tiny
name: aliased
sm:
  integer: &fast {latency: 3, interval: 1}
  integer_multiply: *fast
  float32:
    <<: *fast
    latency: 5
`})
	f, err := LoadConfig(filepath.Join(dir, "a.yaml"))
	require.NoError(t, err)
	assert.Equal(t, 3, f.SM.IntegerMultiply.Latency)
	assert.Equal(t, 5, f.SM.Float32.Latency)
	assert.Equal(t, 1, f.SM.Float32.Interval)
}

func TestBaseErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		load  string
		want  []string
	}{
		{
			name:  "unknown base",
			files: map[string]string{"a.yaml": "base: a100\nname: a\n"},
			want:  []string{`a.yaml:1: base "a100": no shipped configuration of that name and no file `, "a100; shipped configurations: gtx780ti, gtx780ti-x2-pcie, gtx780ti-x4-pcie, h100, h100-x8-nvlink, h200, h200-x8-nvlink, tiny, tiny-x4, v100"},
		},
		{
			name:  "missing base file",
			files: map[string]string{"a.yaml": "name: a\nbase: ../gone.yaml\n"},
			want:  []string{`a.yaml:2: base "../gone.yaml": no shipped configuration of that name and no file `, "gone.yaml"},
		},
		{
			name:  "self",
			files: map[string]string{"a.yaml": "base: a.yaml\nname: a\n"},
			want:  []string{`a.yaml:1: base "a.yaml": cycle of bases: `, "a.yaml -> ", "a.yaml"},
		},
		{
			name: "cycle",
			files: map[string]string{
				"a.yaml":     "name: a\nbase: b.yaml\n",
				"b.yaml":     "base: sub/c.yaml\n",
				"sub/c.yaml": "base: ../b.yaml\n",
			},
			want: []string{"a.yaml:2: base \"b.yaml\": ", "b.yaml:1: base \"sub/c.yaml\": ", "c.yaml:1: base \"../b.yaml\": cycle of bases: ",
				"b.yaml -> ", "sub/c.yaml -> "},
		},
		{
			name:  "no name",
			files: map[string]string{"a.yaml": "base: h100\nsms: 16\n"},
			want:  []string{`a.yaml: missing key "name": a configuration with a base must name itself`},
		},
		{
			name:  "empty base",
			files: map[string]string{"a.yaml": "name: a\nbase: \"\"\n"},
			want:  []string{"a.yaml:2: base is empty"},
		},
		{
			name:  "base without value",
			files: map[string]string{"a.yaml": "name: a\nbase:\n"},
			want:  []string{`a.yaml:2: key "base" has no value`},
		},
		{
			name:  "base is a directory",
			files: map[string]string{"a.yaml": "name: a\nbase: sub\n", "sub/x": ""},
			want:  []string{`a.yaml:2: base "sub": `, "sub is not a regular file"},
		},
		{
			name:  "base inside a section",
			files: map[string]string{"a.yaml": "name: a\nbase: h100\nsm:\n  base: tiny\n"},
			want:  []string{`a.yaml:4: unknown key "sm.base"`},
		},
		{
			name: "error in a base names the base and its line",
			files: map[string]string{
				"a.yaml":   "base: mid.yaml\nname: a\n",
				"mid.yaml": "base: h100\n\nsmz: 3\nsms: many\n",
			},
			want: []string{`a.yaml:1: base "mid.yaml": `, `mid.yaml:3: unknown key "smz"`, `mid.yaml:4: sms: cannot unmarshal`},
		},
		{
			name:  "validation after the merge",
			files: map[string]string{"a.yaml": "base: h100\nname: a\nmemory: {sector_size_bytes: 64}\n"},
			want:  []string{"a.yaml: sm.coalesce_sector_bytes (32) must equal memory.sector_size_bytes (64)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			_, err := LoadConfig(filepath.Join(dir, "a.yaml"))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestSweepExample loads the example of configs/README.md.
func TestSweepExample(t *testing.T) {
	f, err := LoadConfig("testdata/configs/h100-16sms.yaml")
	require.NoError(t, err)
	assert.Equal(t, "h100-16sms", f.Name)
	assert.Equal(t, 16, f.SMs)
	assert.Equal(t, []string{"configs/h100.yaml"}, f.Bases)

	readme, err := os.ReadFile("configs/README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("testdata/configs/h100-16sms.yaml")
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(readme), indent(string(example))),
		"configs/README.md must quote testdata/configs/h100-16sms.yaml, indented by four spaces")
}

// indent indents every non-empty line by four spaces, as a Markdown code
// block.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "\n")
}
