package sim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseConfig feeds arbitrary bytes to the configuration loader: it
// must return a configuration that validates or an error, never panic. A
// `base:` path resolves against the package directory.
func FuzzParseConfig(f *testing.F) {
	for _, name := range ConfigNames() {
		data, err := configFS.ReadFile("configs/" + name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("sms: -1\n"))
	f.Add([]byte("memory: {l2_slices: 0}\n"))
	// The base form: a shipped base, a nested override, a missing or
	// unknown base, a key without a value.
	f.Add([]byte("base: tiny\nname: fuzz\nsms: 1\nsm: {float64: {latency: 9}}\n"))
	f.Add([]byte("base: h100\nname: fuzz\nmemory: {sector_size_bytes: 64}\n"))
	f.Add([]byte("base: tiny\nsms: 1\n"))
	f.Add([]byte("base: a100\nname: fuzz\n"))
	f.Add([]byte("base: tiny\nname: fuzz\nsm:\n  shared_pass_cycles:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data, "fuzz.yaml")
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("ParseConfig accepted a configuration that does not validate: %v", err)
		}
	})
}

// shippedConfigs loads every shipped configuration once.
func shippedConfigs(tb testing.TB) map[string]FullConfig {
	tb.Helper()
	out := map[string]FullConfig{}
	for _, name := range ConfigNames() {
		c, err := LoadConfig(name)
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = c
	}
	return out
}

// schemaIndex maps every leaf key of the schema to its field's index path
// in FullConfig (reflect.Value.FieldByIndex), so that the fuzz body sets a
// value without searching the struct tags.
var schemaIndex = func() map[string][]int {
	out := map[string][]int{}
	for _, path := range configKeyPaths() {
		t, index := reflect.TypeFor[FullConfig](), []int(nil)
		for _, part := range strings.Split(path, ".") {
			f, ok := indexByKey(t, part)
			if !ok {
				panic("no field for schema key " + path)
			}
			index = append(index, f...)
			t = t.FieldByIndex(f).Type
		}
		out[path] = index
	}
	return out
}()

// indexByKey is the index path of the field of struct type t whose YAML
// key is key, looking into inline fields.
func indexByKey(t reflect.Type, key string) ([]int, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if strings.Contains(f.Tag.Get("yaml"), ",inline") {
			if sub, ok := indexByKey(f.Type, key); ok {
				return append([]int{i}, sub...), true
			}
			continue
		}
		if yamlKey(f) == key {
			return []int{i}, true
		}
	}
	return nil, false
}

// applyOverride sets the typed values of an override's settings on c, as
// decoding the generated file onto its base does.
func applyOverride(c *FullConfig, settings []configOverride) error {
	v := reflect.ValueOf(c).Elem()
	for _, o := range settings {
		index, ok := schemaIndex[o.key]
		if !ok {
			return fmt.Errorf("no key %s", o.key)
		}
		f := v.FieldByIndex(index)
		x, err := typedValue(f.Type(), o.value)
		if err != nil {
			return fmt.Errorf("%s=%s: %w", o.key, o.value, err)
		}
		switch x := x.(type) {
		case int64:
			f.SetInt(x)
		case uint64:
			f.SetUint(x)
		case float64:
			f.SetFloat(x)
		case bool:
			f.SetBool(x)
		case string:
			f.SetString(x)
		default:
			return fmt.Errorf("%s: value %v of type %T", o.key, x, x)
		}
	}
	return nil
}

// overrideHarness is FuzzConfigOverride's body: it parses s and, when s
// is an override of a shipped configuration, validates what it describes
// (the base decoded once, each setting's typed value set on it). It returns the
// configuration and its validation error (ok false when s is no such
// override).
func overrideHarness(t *testing.T, bases map[string]FullConfig, s string) (c FullConfig, validation error, ok bool) {
	base, settings, _, err := parseOverride(s)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "simulator configuration ") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("parseOverride(%q): the error is not one line naming the configuration: %q", s, err)
		}
		return FullConfig{}, nil, false
	}
	parts := []string{base}
	for _, o := range settings {
		parts = append(parts, o.key+"="+o.value)
	}
	if spelt := strings.Join(parts, "+"); spelt != s {
		t.Fatalf("parseOverride(%q) gives back %q", s, spelt)
	}
	c, ok = bases[base]
	if !ok {
		return FullConfig{}, nil, false // a file as the base: not read in the fuzz body
	}
	if err := applyOverride(&c, settings); err != nil {
		t.Fatalf("parseOverride(%q) gave values of the wrong keys or types: %v", s, err)
	}
	c.Name, c.Overrides = s, parts[1:]
	return c, c.Validate(), true
}

// FuzzConfigOverride checks inline overrides (configs_override.go) on
// arbitrary strings: parsing never panics and refuses with one line; what
// it accepts spells itself back (the base, then each KEY=VALUE in order)
// with values of the keys' types; and the configuration it describes
// validates or fails validation, never panics. Loading an override
// through YAML takes about 2 ms, so the body sets the typed values on the
// shipped base decoded once instead (TestOverrideHarnessMatchesLoader
// checks that it gives what LoadConfig gives) and runs a million inputs in
// well under two minutes on two cores.
func FuzzConfigOverride(f *testing.F) {
	bases := shippedConfigs(f)
	for _, s := range []string{
		"h100+sms=16", "h100+sms=16+memory.l2_slices=20+memory.atomic_ops_per_cycle=0.165+sm.scheduling_policy=lrr",
		"tiny+attrs_gpu=", "tiny+attrs_gpu=100", "v100+host.launch_ns=1", "gtx780ti+sms=524287",
		"h100+sms=1000000000", "h100+sms=0", "h100+max_warps_per_sm=30", "h100+memory.sector_size_bytes=64",
		"h100+memory.coherence=ideal+sms=300", "h100+sm.deadlock_window_cycles=-1", "h100+clock_mhz=0",
		"h100+memory.l2_slices=0", "h100+memory.dram_queue_depth=0", "h100+global_mem_bytes=0",
		"h100+smz=16", "h100+sms=16+sms=32", "h100+=3", "+sms=16", "h100+sms=16;x=1", "testdata/configs/h100-16sms.yaml+sms=8",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		overrideHarness(t, bases, s)
	})
}

// TestOverrideHarnessMatchesLoader: the fuzz body's shortcut (typed values
// set on a decoded base) describes the configuration LoadConfig loads, and
// validates exactly when LoadConfig accepts it.
func TestOverrideHarnessMatchesLoader(t *testing.T) {
	bases := shippedConfigs(t)
	for _, s := range []string{
		"h100+sms=16", "h100+sms=16+memory.l2_slices=20+memory.atomic_ops_per_cycle=0.165+sm.scheduling_policy=lrr",
		"tiny+attrs_gpu=", "v100+host.launch_ns=1", "gtx780ti+sms=524287", "h100+memory.coherence=ideal+sms=300",
		"h100+sms=1000000000", "h100+sms=0", "h100+max_warps_per_sm=30", "h100+memory.sector_size_bytes=64", "h100+clock_mhz=0",
	} {
		t.Run(s, func(t *testing.T) {
			got, verr, ok := overrideHarness(t, bases, s)
			require.True(t, ok)
			want, err := LoadConfig(s)
			if err != nil {
				assert.Error(t, verr, "LoadConfig refuses it: %v", err)
				return
			}
			require.NoError(t, verr)
			assert.Equal(t, want.Config, got.Config)
		})
	}
}
