package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An inline override names a configuration and the keys it changes in one
// word, so that a sweep's --config list, a point key and a CSV cell can
// say exactly what ran without a file per variant:
//
//	h100+sms=16
//	h100+memory.l2_slices=20+memory.atomic_ops_per_cycle=0.165
//
// The word is BASE+KEY=VALUE[+KEY=VALUE...]. BASE is a shipped
// configuration's name or the path of a YAML file (one without '+'); each
// KEY is a dotted YAML path of the schema (configs/README.md), and VALUE is
// checked against the key's type. It loads as the file
//
//	base: BASE
//	name: <the whole word>
//	KEY: VALUE ...
//
// would: every key of the base chain, the overrides on top, and the whole
// validated as any configuration. Its name is the word itself.
// Characters are limited to letters, digits and "._-/" besides '+' and '=',
// so that the name needs no quoting in a shell and fits a point key
// (config=...;axis=...) and a comma-separated --config list.

// overrideNamePattern is what the name of an inline override looks like.
var overrideNamePattern = regexp.MustCompile(`^[A-Za-z0-9_./-]+(\+[a-z0-9_.]+=[A-Za-z0-9_.-]*)+$`)

// isOverride says whether s is spelt as an inline override: a '+' with a
// KEY=VALUE after it.
func isOverride(s string) bool {
	_, rest, ok := strings.Cut(s, "+")
	return ok && strings.Contains(rest, "=")
}

// configOverride is one KEY=VALUE of an inline override.
type configOverride struct {
	key, value string
}

// parseOverride splits an inline override into its base and settings,
// checking the characters and that every key is a schema key, given once,
// whose value has the key's type; values holds the typed values as a
// nested YAML mapping.
func parseOverride(s string) (base string, settings []configOverride, values map[string]any, err error) {
	fail := func(format string, args ...any) (string, []configOverride, map[string]any, error) {
		return "", nil, nil, fmt.Errorf("simulator configuration %q: %s", s, fmt.Sprintf(format, args...))
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-/+=", c)) {
			return fail("character %q is not allowed in an inline override (letters, digits, '.', '_', '-', '/', then +KEY=VALUE)", c)
		}
	}
	parts := strings.Split(s, "+")
	base = parts[0]
	if base == "" {
		return fail("no base: write BASE+KEY=VALUE, e.g. h100+sms=16")
	}
	values = map[string]any{}
	seen := map[string]bool{}
	for _, part := range parts[1:] {
		key, value, ok := strings.Cut(part, "=")
		if !ok || key == "" {
			return fail("%q is not KEY=VALUE (e.g. sms=16 or memory.l2_slices=20)", part)
		}
		if key == "name" || key == "base" {
			return fail("%s cannot be overridden inline: the name is the override itself and the base comes first", key)
		}
		t, ok := schemaFieldType(key)
		if !ok {
			return fail("%s", unknownKeyMessage(key))
		}
		if seen[key] {
			return fail("key %q is given twice", key)
		}
		seen[key] = true
		v, err := typedValue(t, value)
		if err != nil {
			return fail("%s=%s: %v", key, value, err)
		}
		setPath(values, strings.Split(key, "."), v)
		settings = append(settings, configOverride{key, value})
	}
	return base, settings, values, nil
}

// loadOverride loads an inline override (see isOverride).
func loadOverride(s string) (FullConfig, error) {
	base, settings, values, err := parseOverride(s)
	if err != nil {
		return FullConfig{}, err
	}
	// The base goes into the generated file as a shipped name or an
	// absolute path, so that it resolves from the working directory
	// whatever the override's own spelling.
	if names := embeddedConfigNames(); !slices.Contains(names, base) {
		if _, err := os.Stat(base); err != nil {
			return FullConfig{}, fmt.Errorf("simulator configuration %q: base %q is neither a shipped configuration (%s) nor a file: %w",
				s, base, strings.Join(names, ", "), err)
		}
		abs, err := filepath.Abs(base)
		if err != nil {
			return FullConfig{}, fmt.Errorf("simulator configuration %q: base %q: %w", s, base, err)
		}
		values["base"] = abs
	} else {
		values["base"] = base
	}
	values["name"] = s
	data, err := yaml.Marshal(values)
	if err != nil {
		return FullConfig{}, fmt.Errorf("simulator configuration %q: %w", s, err)
	}
	src := configSource{display: s, id: "override:" + s}
	f, err := mergeConfigFile(data, src)
	if err != nil {
		return FullConfig{}, err
	}
	f.Overrides = make([]string, len(settings))
	described := false
	for i, o := range settings {
		f.Overrides[i] = o.key + "=" + o.value
		described = described || o.key == "description"
	}
	if !described {
		f.Description = fmt.Sprintf("%s with %s (inline override). %s", base, strings.Join(f.Overrides, ", "), f.Description)
	}
	if err := f.Validate(); err != nil {
		return FullConfig{}, eachLine(err, s+": ")
	}
	return f, nil
}

// schemaFieldType is the Go type of the schema's leaf key at a dotted
// path ("memory.l2_slices"); false when no leaf key has that path.
func schemaFieldType(path string) (reflect.Type, bool) {
	t, ok := schemaTypes[path]
	return t, ok
}

// schemaTypes maps every leaf key of the schema to its Go type, found
// once rather than by walking the schema for every key of every override.
var schemaTypes = func() map[string]reflect.Type {
	types := map[string]reflect.Type{}
	for _, path := range configKeyPaths() {
		t := reflect.TypeFor[FullConfig]()
		for _, part := range strings.Split(path, ".") {
			f, ok := fieldByKey(t, part)
			if !ok {
				panic(fmt.Sprintf("sim: schema key %s has no field", path))
			}
			t = f.Type
		}
		types[path] = t
	}
	return types
}()

// fieldByKey finds the field of struct type t whose YAML key is key,
// looking into inline fields.
func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if strings.Contains(f.Tag.Get("yaml"), ",inline") {
			if g, ok := fieldByKey(f.Type, key); ok {
				return g, true
			}
			continue
		}
		if yamlKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// unknownKeyMessage names an unknown key and, when it is the last part of
// schema keys ("l2_slices"), their full paths.
func unknownKeyMessage(key string) string {
	var near []string
	for _, p := range configKeyPaths() {
		if strings.HasSuffix(p, "."+key) {
			near = append(near, p)
		}
	}
	msg := fmt.Sprintf("unknown key %q", key)
	if len(near) > 0 {
		return msg + ": keys are full YAML paths, did you mean " + strings.Join(near, " or ") + "?"
	}
	return msg + " (keys are the YAML paths of sim/configs/README.md, e.g. sms, sm.warp_schedulers, memory.l2_slices)"
}

// typedValue reads text as a value of type t, as the YAML decoder would
// accept it, and returns it in a form yaml.Marshal writes back as that type.
func typedValue(t reflect.Type, text string) (any, error) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, t.Bits())
		if err != nil {
			return nil, fmt.Errorf("want an integer (%s)", t)
		}
		return n, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(text, 10, t.Bits())
		if err != nil {
			return nil, fmt.Errorf("want a non-negative integer (%s)", t)
		}
		return n, nil
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(text, t.Bits())
		if err != nil {
			return nil, fmt.Errorf("want a number")
		}
		return x, nil
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("want true or false")
		}
		return b, nil
	case reflect.String:
		return text, nil
	}
	return nil, fmt.Errorf("a %s cannot be set inline: write a file with base: and the key", t.Kind())
}

// setPath sets m[path[0]][path[1]]... = v, creating the mappings between.
func setPath(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	m[path[len(path)-1]] = v
}
