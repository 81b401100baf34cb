package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file reads one configuration file as a layer of keys, follows its
// `base:` chain, merges the layers and checks that every key of the schema
// is set. configs/README.md ("Inheritance: base" and "Every key is
// required") describes the rules for users.

// optionalTag marks a schema field that a configuration may leave out:
// `config:"optional"` beside the field's yaml tag. On a struct-valued
// field (a section) it lets the whole section be left out, taking its Go
// zero value; a section that is present must still set every key in it,
// so that a half-written section is an error rather than silent zeros. On
// a leaf it lets that key be left out wherever. Only the `system:` section
// (Config.System: leaving it out means a single GPU with no link) carries
// it; every other key is required, including those whose 0 or "" selects
// a default (memory.dram_queue_depth, memory.l1_model,
// sm.shared_atomic_locks), so that no sweep zeroes a parameter by leaving
// it out. A field that gets the tag must say in its comment what leaving
// it out means.
const optionalTag = "optional"

// maxBaseDepth bounds a base chain; real chains are one or two files long.
const maxBaseDepth = 32

// configFile is one configuration file as written: any subset of
// FullConfig's keys, and `base:`. Decoding a file strictly into it reports
// unknown keys and type errors with the file's own lines.
type configFile struct {
	FullConfig `yaml:",inline"`
	Base       string `yaml:"base"`
}

// configSource names one configuration file: how errors name it, whether
// it is embedded (configFS) or on disk, and its identity for cycle
// detection.
type configSource struct {
	display  string
	embedded bool
	id       string
}

func embeddedSource(name string) configSource {
	p := "configs/" + name + ".yaml"
	return configSource{display: p, embedded: true, id: "embedded:" + p}
}

// diskSource identifies a file by its absolute path with symbolic links
// resolved, so that two spellings of one file are one file in a chain.
func diskSource(path string) configSource {
	id, err := filepath.Abs(path)
	if err != nil {
		id = path
	}
	if real, err := filepath.EvalSymlinks(id); err == nil {
		id = real
	}
	return configSource{display: path, id: id}
}

// configLayer is one file of a chain: the keys it sets (aliases and merge
// keys resolved), the base it names and where.
type configLayer struct {
	src      configSource
	data     []byte
	keys     map[string]any
	base     string
	baseLine int
}

// schemaKey is one leaf key of the configuration schema: its dotted path
// ("sm.integer.latency"), whether a file may leave it out wherever (the
// key is tagged optional itself), and the innermost optional section it
// lies in ("" for none): a key of an optional section may be left out
// only with its whole section.
type schemaKey struct {
	path     string
	optional bool
	section  string
}

// configSchema lists the leaf keys of FullConfig, the keys a loaded
// configuration must set.
var configSchema = schemaKeys(reflect.TypeFor[FullConfig](), "", "")

// schemaKeys lists the leaf YAML keys of a struct type, descending into
// struct-valued fields and flattening inline ones. section is the
// innermost optional section the type lies in; a struct-valued field
// tagged `config:"optional"` becomes the section of every key below it,
// and a tagged leaf is optional.
func schemaKeys(t reflect.Type, prefix, section string) []schemaKey {
	var out []schemaKey
	for i := range t.NumField() {
		f := t.Field(i)
		tagged := slices.Contains(strings.Split(f.Tag.Get("config"), ","), optionalTag)
		if strings.Contains(f.Tag.Get("yaml"), ",inline") {
			out = append(out, schemaKeys(f.Type, prefix, section)...)
			continue
		}
		key := yamlKey(f)
		if key == "" {
			continue
		}
		if prefix != "" {
			key = prefix + "." + key
		}
		if f.Type.Kind() == reflect.Struct {
			sub := section
			if tagged {
				sub = key
			}
			out = append(out, schemaKeys(f.Type, key, sub)...)
			continue
		}
		out = append(out, schemaKey{path: key, optional: tagged, section: section})
	}
	return out
}

// configKeyPaths lists every leaf key of the schema, optional or not.
func configKeyPaths() []string {
	out := make([]string, len(configSchema))
	for i, k := range configSchema {
		out[i] = k.path
	}
	return out
}

// parseConfigFile loads the configuration in data, read from src: its own
// keys over those its base chain sets. Every required key must be set
// somewhere in the chain, and the result must validate.
func parseConfigFile(data []byte, src configSource) (FullConfig, error) {
	f, err := mergeConfigFile(data, src)
	if err != nil {
		return FullConfig{}, err
	}
	if err := f.Validate(); err != nil {
		return FullConfig{}, eachLine(err, src.display+": ")
	}
	return f, nil
}

// mergeConfigFile is parseConfigFile without the final validation: the
// merged configuration, every required key set.
func mergeConfigFile(data []byte, src configSource) (FullConfig, error) {
	top, err := decodeLayer(data, src)
	if err != nil {
		return FullConfig{}, err
	}
	var bases []configLayer // nearest first
	if top.base != "" {
		if _, ok := top.keys["name"]; !ok {
			return FullConfig{}, fmt.Errorf("%s: missing key \"name\": a configuration with a base must name itself", src.display)
		}
		if bases, err = baseLayers(top, []configSource{src}); err != nil {
			return FullConfig{}, err
		}
	}
	// Furthest first, so that nearer layers win.
	layers := slices.Clone(bases)
	slices.Reverse(layers)
	layers = append(layers, top)

	keys := map[string]any{}
	for _, l := range layers {
		keys = mergeKeys(keys, l.keys)
	}
	if missing := missingKeys(keys, configSchema); len(missing) > 0 {
		where := ""
		if len(bases) > 0 {
			names := make([]string, len(bases))
			for i, b := range bases {
				names[i] = b.src.display
			}
			noun := "base"
			if len(names) > 1 {
				noun = "bases"
			}
			where = fmt.Sprintf(" (set neither here nor in its %s %s)", noun, strings.Join(names, ", "))
		}
		errs := make([]error, len(missing))
		for i, k := range missing {
			errs[i] = fmt.Errorf("%s: missing key %q%s", src.display, k, where)
		}
		return FullConfig{}, errors.Join(errs...)
	}

	// Decoding a mapping into a struct sets only the fields it names and
	// descends into nested structs, so decoding the layers in turn merges
	// them as mergeKeys does, and each scalar keeps the spelling its file
	// gave it ("name: 0x10" stays "0x10"). decodeLayer has decoded each
	// layer on its own already.
	var file configFile
	for _, l := range layers {
		dec := yaml.NewDecoder(bytes.NewReader(l.data))
		dec.KnownFields(true)
		if err := dec.Decode(&file); err != nil {
			return FullConfig{}, fmt.Errorf("%s: %w", l.src.display, err)
		}
	}
	f := file.FullConfig
	f.Source = src.display
	for _, b := range bases {
		f.Bases = append(f.Bases, b.src.display)
	}
	return f, nil
}

// decodeLayer checks one file on its own (YAML syntax, one document, a
// mapping, known keys of the right types, no key without a value) and
// returns the keys it sets.
func decodeLayer(data []byte, src configSource) (configLayer, error) {
	source := src.display
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return configLayer{}, fmt.Errorf("%s: %w", source, err)
	}
	if len(root.Content) == 0 {
		return configLayer{}, fmt.Errorf("%s: empty configuration", source)
	}
	if doc := root.Content[0]; doc.Kind != yaml.MappingNode {
		return configLayer{}, fmt.Errorf("%s:%d: a configuration is a mapping of keys to values", source, doc.Line)
	}
	keys := keyLines(&root)

	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f configFile
	if err := dec.Decode(&f); err != nil {
		return configLayer{}, decodeError(source, err, keys)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return configLayer{}, fmt.Errorf("%s: more than one YAML document", source)
	}

	l := configLayer{src: src, data: data}
	if err := root.Decode(&l.keys); err != nil {
		return configLayer{}, fmt.Errorf("%s: %w", source, err)
	}
	lineOf := map[string]int{}
	for line, paths := range keys {
		for _, p := range paths {
			lineOf[p] = line
		}
	}
	if errs := nullKeys(l.keys, "", source, lineOf); len(errs) > 0 {
		return configLayer{}, errors.Join(errs...)
	}
	if _, ok := l.keys["base"]; ok {
		l.base, l.baseLine = f.Base, lineOf["base"]
		delete(l.keys, "base")
		if strings.TrimSpace(l.base) == "" {
			return configLayer{}, fmt.Errorf("%s:%d: base is empty: give a shipped configuration's name or a YAML path", source, l.baseLine)
		}
	}
	return l, nil
}

// nullKeys reports every key written without a value ("sms:" or
// "sms: ~"), which YAML would decode as a silent zero.
func nullKeys(m map[string]any, prefix, source string, lineOf map[string]int) []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		switch v := m[k].(type) {
		case nil:
			loc := source
			if line, ok := lineOf[p]; ok {
				loc = fmt.Sprintf("%s:%d", source, line)
			}
			errs = append(errs, fmt.Errorf("%s: key %q has no value (write \"\" for an empty string)", loc, p))
		case map[string]any:
			errs = append(errs, nullKeys(v, p, source, lineOf)...)
		}
	}
	return errs
}

// baseLayers returns the files of l's base chain, nearest first. chain
// holds the files that led to l's base, l's own last; a base already in it
// is a cycle.
func baseLayers(l configLayer, chain []configSource) ([]configLayer, error) {
	at := fmt.Sprintf("%s:%d: base %q", l.src.display, l.baseLine, l.base)
	src, data, err := resolveBase(l)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	if i := slices.IndexFunc(chain, func(c configSource) bool { return c.id == src.id }); i >= 0 {
		names := make([]string, 0, len(chain)+1)
		for _, c := range chain[i:] {
			names = append(names, c.display)
		}
		names = append(names, src.display)
		return nil, fmt.Errorf("%s: cycle of bases: %s", at, strings.Join(names, " -> "))
	}
	if len(chain) > maxBaseDepth {
		return nil, fmt.Errorf("%s: more than %d bases in a chain", at, maxBaseDepth)
	}
	b, err := decodeLayer(data, src)
	if err != nil {
		return nil, eachLine(err, at+": ")
	}
	if b.base == "" {
		return []configLayer{b}, nil
	}
	below, err := baseLayers(b, append(chain, src))
	if err != nil {
		return nil, eachLine(err, at+": ")
	}
	return append([]configLayer{b}, below...), nil
}

// resolveBase finds the file l's base names: a shipped configuration by
// name, otherwise a YAML file, relative to the directory of l's file. A
// shipped configuration's base must be shipped.
func resolveBase(l configLayer) (configSource, []byte, error) {
	names := embeddedConfigNames()
	if slices.Contains(names, l.base) {
		src := embeddedSource(l.base)
		data, err := configFS.ReadFile(src.display)
		return src, data, err
	}
	known := "shipped configurations: " + strings.Join(names, ", ")
	if l.src.embedded {
		return configSource{}, nil, fmt.Errorf("a shipped configuration may only name a shipped one as its base; %s", known)
	}
	p := l.base
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(l.src.display), p)
	}
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return configSource{}, nil, fmt.Errorf("no shipped configuration of that name and no file %s; %s", p, known)
		}
		return configSource{}, nil, err
	}
	if !st.Mode().IsRegular() {
		return configSource{}, nil, fmt.Errorf("%s is not a regular file", p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return configSource{}, nil, err
	}
	return diskSource(p), data, nil
}

// mergeKeys returns base with over's keys laid on top: mappings present in
// both merge key by key, any other value of over replaces base's (a
// sequence such as compute_capability is replaced whole). Neither argument
// is modified. It decides which keys a chain sets; the values come from
// decoding the layers in turn (parseConfigFile), which merges the same way.
func mergeKeys(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, bok := out[k].(map[string]any)
		om, ook := v.(map[string]any)
		if bok && ook {
			out[k] = mergeKeys(bm, om)
			continue
		}
		out[k] = v
	}
	return out
}

// missingKeys lists the required keys of schema that keys does not set,
// in schema order: every key not tagged optional, except those of an
// optional section that keys leaves out. A missing section is reported
// once, by its own key ("memory"), rather than once per key in it.
func missingKeys(keys map[string]any, schema []schemaKey) []string {
	var missing []string
	for _, k := range schema {
		if k.optional || k.section != "" && !hasKey(keys, k.section) {
			continue
		}
		parts := strings.Split(k.path, ".")
		m := keys
		for i, part := range parts {
			v, ok := m[part]
			if !ok {
				if p := strings.Join(parts[:i+1], "."); !slices.Contains(missing, p) {
					missing = append(missing, p)
				}
				break
			}
			sub, ok := v.(map[string]any)
			if !ok {
				// A leaf, or a value of the wrong type that decoding
				// reports.
				break
			}
			m = sub
		}
	}
	return missing
}

// hasKey says whether keys sets the dotted path, a leaf or a section.
func hasKey(keys map[string]any, path string) bool {
	parts := strings.Split(path, ".")
	m := keys
	for i, part := range parts {
		v, ok := m[part]
		if !ok {
			return false
		}
		if i == len(parts)-1 {
			return true
		}
		if m, ok = v.(map[string]any); !ok {
			return false
		}
	}
	return false
}
