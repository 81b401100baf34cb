package sim

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// configFS holds the shipped configurations, one YAML file per GPU; the
// file name (without .yaml) is the configuration's name. configs/README.md
// documents every key, its unit and the sources of the values.
//
//go:embed configs/*.yaml
var configFS embed.FS

// FullConfig is one simulator configuration file: the Config it fills (the
// residency limits and clock at the top level, the SM timing under `sm:`,
// the memory system under `memory:`) and a description. The YAML keys are
// the field tags of Config, timing.SMConfig and memsys.Config, and every one
// of them is required (see configs_base.go for how a key could be made
// optional). A file may instead name a `base:` configuration and state only
// what differs from it.
type FullConfig struct {
	Config `yaml:",inline"`
	// Description says which GPU the file models and how far to trust it.
	Description string `yaml:"description"`
	// Source is where the configuration came from: "configs/<name>.yaml"
	// (embedded) or the path it was read from. Not a YAML key.
	Source string `yaml:"-"`
	// Bases lists the files the configuration inherited from through
	// `base:`, nearest first ("configs/h100.yaml"); empty when it names no
	// base. Not a YAML key.
	Bases []string `yaml:"-"`
	// Overrides lists the KEY=VALUE settings of an inline override
	// ("h100+sms=16" gives ["sms=16"]), in the order given; empty for a
	// file. Not a YAML key. See configs_override.go.
	Overrides []string `yaml:"-"`
}

// configNamePattern is what a configuration's name may look like.
var configNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// embeddedConfigNames lists the shipped configurations, sorted.
func embeddedConfigNames() []string {
	entries, err := fs.ReadDir(configFS, "configs")
	if err != nil {
		panic(fmt.Sprintf("sim: embedded configurations unreadable: %v", err))
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// LoadConfig loads a simulator configuration: a shipped one by name (see
// ConfigNames), an inline override of one ("h100+sms=16+memory.l2_slices=20",
// see configs_override.go), otherwise the YAML file at the path nameOrPath.
// Decoding is strict (an unknown, repeated or missing key, or a key without
// a value, is an error), `base:` chains are followed (a file inherits every
// key of its base and overrides the ones it states), and every part is
// validated; errors name the file, the line where there is one, and the key.
func LoadConfig(nameOrPath string) (FullConfig, error) {
	if slices.Contains(embeddedConfigNames(), nameOrPath) {
		src := embeddedSource(nameOrPath)
		data, err := configFS.ReadFile(src.display)
		if err != nil {
			return FullConfig{}, fmt.Errorf("%s: %w", src.display, err)
		}
		f, err := parseConfigFile(data, src)
		if err != nil {
			return FullConfig{}, err
		}
		if f.Name != nameOrPath {
			return FullConfig{}, fmt.Errorf("%s: name is %q, want the file's name %q", src.display, f.Name, nameOrPath)
		}
		return f, nil
	}
	if isOverride(nameOrPath) {
		// A file of that name wins; there is seldom one. Any error from
		// Stat means there is none to read (a long override is longer
		// than a file name may be).
		if _, err := os.Stat(nameOrPath); err != nil {
			return loadOverride(nameOrPath)
		}
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\`) && path.Ext(nameOrPath) == "" {
			return FullConfig{}, fmt.Errorf("no simulator configuration named %q and no such file; known: %s (or one of them with keys overridden inline, e.g. h100+sms=16)",
				nameOrPath, strings.Join(embeddedConfigNames(), ", "))
		}
		return FullConfig{}, fmt.Errorf("simulator configuration: %w", err)
	}
	return parseConfigFile(data, diskSource(nameOrPath))
}

// ParseConfig decodes and validates one configuration file's content, as
// LoadConfig does; source names the file in errors, and a `base:` path in
// it is relative to source's directory.
func ParseConfig(data []byte, source string) (FullConfig, error) {
	return parseConfigFile(data, diskSource(source))
}

// Validate checks every part of the configuration (Config.Validate,
// timing.SMConfig.Validate, memsys.Config.Validate) and that the parts agree
// with each other. Errors name fields by their YAML keys.
func (f FullConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	switch {
	case len(f.Overrides) > 0:
		if !overrideNamePattern.MatchString(f.Name) {
			bad("name of an inline override must be BASE+KEY=VALUE[+KEY=VALUE...], got %q", f.Name)
		}
	case !configNamePattern.MatchString(f.Name):
		bad("name must be lower-case letters, digits, '.', '_' or '-', got %q", f.Name)
	}
	if strings.TrimSpace(f.Description) == "" {
		bad("description is missing")
	}
	if err := f.Config.Validate(); err != nil {
		errs = append(errs, eachLine(yamlFieldNames(err), "", fmt.Sprintf("config %q: ", f.Name)))
	}
	if err := f.SM.Validate(); err != nil {
		errs = append(errs, eachLine(err, "sm: ", "invalid SM configuration: "))
	}
	if err := f.Memory.Validate(); err != nil {
		errs = append(errs, eachLine(err, "memory: ", "invalid memory configuration: "))
	}
	if s, m := f.SM.CoalesceSectorBytes, f.Memory.SectorSizeBytes; s != m {
		bad("sm.coalesce_sector_bytes (%d) must equal memory.sector_size_bytes (%d)", s, m)
	}
	if s, m := f.SM.CoalesceLineBytes, f.Memory.LineSizeBytes; s != m {
		bad("sm.coalesce_line_bytes (%d) must equal memory.line_size_bytes (%d)", s, m)
	}
	if w, s := f.MaxWarpsPerSM, f.SM.WarpSchedulers; w > 0 && s > 0 && w%s != 0 {
		bad("max_warps_per_sm (%d) must be a multiple of sm.warp_schedulers (%d)", w, s)
	}
	return errors.Join(errs...)
}

// eachLine rewrites a (possibly joined, multi-line) error as one error per
// line, each starting with prefix, after dropping a leading strip from the
// first line, so that every problem names its file and part.
func eachLine(err error, prefix string, strip ...string) error {
	lines := strings.Split(err.Error(), "\n")
	for _, s := range strip {
		lines[0] = strings.TrimPrefix(lines[0], s)
	}
	errs := make([]error, 0, len(lines))
	for _, l := range lines {
		if l != "" {
			errs = append(errs, errors.New(prefix+l))
		}
	}
	return errors.Join(errs...)
}

// configFieldKeys maps Config's Go field names to their YAML keys, for
// rewriting the messages of Config.Validate (which names Go fields).
var configFieldKeys = func() map[string]string {
	m := map[string]string{}
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		f := t.Field(i)
		if key := yamlKey(f); key != "" && key != "sm" && key != "memory" && key != "host" && key != "system" {
			m[f.Name] = key
		}
	}
	return m
}()

var goFieldName = regexp.MustCompile(`\b[A-Z][A-Za-z]*\b`)

// yamlFieldNames rewrites the Go field names in an error of Config.Validate
// as YAML keys ("SMs must be positive" becomes "sms must be positive").
func yamlFieldNames(err error) error {
	msg := goFieldName.ReplaceAllStringFunc(err.Error(), func(w string) string {
		if k, ok := configFieldKeys[w]; ok {
			return k
		}
		return w
	})
	return errors.New(msg)
}

// yamlKey is a struct field's YAML key ("" for fields YAML skips).
func yamlKey(f reflect.StructField) string {
	tag := f.Tag.Get("yaml")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

// keyLines maps each line of a document to the dotted paths of the mapping
// keys on it ("memory.l1_ways"), so that decoder errors, which give only a
// line, can name the key.
func keyLines(root *yaml.Node) map[int][]string {
	lines := map[int][]string{}
	walkKeys(root, func(path string, key, _ *yaml.Node) bool {
		lines[key.Line] = append(lines[key.Line], path)
		return true
	})
	return lines
}

// walkKeys calls visit for every mapping key of the document, depth first,
// with its dotted path ("memory.l1_ways"; sequence items add "[i]"), and
// descends into the value when visit returns true.
func walkKeys(root *yaml.Node, visit func(path string, key, value *yaml.Node) bool) {
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, prefix)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if prefix != "" {
					p = prefix + "." + k.Value
				}
				if visit(p, k, v) {
					walk(v, p)
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, prefix+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	walk(root, "")
}

var (
	typeErrorLine = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownField  = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// decodeError names the file and, for each problem the decoder reports by
// line, the key on that line.
func decodeError(source string, err error, keys map[int][]string) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %w", source, err)
	}
	var errs []error
	for _, e := range te.Errors {
		m := typeErrorLine.FindStringSubmatch(e)
		if m == nil {
			errs = append(errs, fmt.Errorf("%s: %s", source, e))
			continue
		}
		line, _ := strconv.Atoi(m[1])
		key := strings.Join(keys[line], ", ")
		if u := unknownField.FindStringSubmatch(m[2]); u != nil {
			if key == "" {
				key = u[1]
			}
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %q", source, line, key))
			continue
		}
		if key == "" {
			errs = append(errs, fmt.Errorf("%s:%d: %s", source, line, m[2]))
			continue
		}
		errs = append(errs, fmt.Errorf("%s:%d: %s: %s", source, line, key, m[2]))
	}
	return errors.Join(errs...)
}

// Open loads a configuration (a shipped name or a YAML path, as
// LoadConfig) and starts a Device on it.
func Open(nameOrPath string, opts ...Option) (*Device, error) {
	cfg, err := LoadConfig(nameOrPath)
	if err != nil {
		return nil, err
	}
	return New(cfg.Config, opts...)
}
