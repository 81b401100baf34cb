package sim

import (
	"testing"
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
