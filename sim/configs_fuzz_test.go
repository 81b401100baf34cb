package sim

import (
	"testing"
)

// FuzzParseConfig feeds arbitrary bytes to the configuration loader: it
// must return a configuration that validates or an error, never panic.
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
