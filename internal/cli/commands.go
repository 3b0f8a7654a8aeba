package cli

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/seed4af8c199/browsermcp/internal/editdist"
	"github.com/seed4af8c199/browsermcp/tools"
)

// command is one command of the command line: an alias over a tool
// (aliases), a tool under its own name (generated from the registry), or
// a local one that calls no tool (close --all, skill, batch).
type command struct {
	name    string
	args    string // its positionals, for the help: "<target> <text>"
	summary string
	example string
	// tool is the tool it calls; options named after the tool's
	// arguments pass through to it.
	tool string
	// also are the other tools build may pick, whose arguments are
	// options too.
	also []string
	// opts are its own options, which build reads.
	opts []option
	// min and max bound its positionals; max -1 is any number.
	min, max int
	// build maps the positionals and own options onto the tool's
	// arguments; it may name another tool. nil: positionals fill the
	// tool's required arguments in order.
	build func(pos []string, own map[string]string, args map[string]any) (string, error)
	// post prints the result in place of printResult (files to write,
	// one field to print).
	post func(ctx context.Context, s *conn, inv invocation, r *toolResult, asJSON bool) error
	// local runs a command that is not one tool call.
	local func(ctx context.Context, args []string, g globals, e env) int
	// generated marks a tool's own command.
	generated bool
}

// option is a command's own option.
type option struct {
	name, short string
	isBool      bool
	help        string
}

// invocation is a parsed command: the call to make.
type invocation struct {
	tool string
	args map[string]any
	pos  []string
	own  map[string]string
}

// refPattern is a ref as snapshot prints it, with or without @ and with
// or without its session's prefix (name:e5).
var refPattern = regexp.MustCompile(`^@?((?:[^\s:\[\]@]+:)?e[0-9]+)$`)

// setTarget names the element of an action: a ref (@e12, e12) or a
// selector.
func setTarget(args map[string]any, t string) {
	if m := refPattern.FindStringSubmatch(t); m != nil {
		args["ref"] = m[1]
		return
	}
	args["selector"] = t
}

// refOrSelector is a target as drag_and_drop takes it: one string, a ref
// without its @.
func refOrSelector(t string) string {
	if m := refPattern.FindStringSubmatch(t); m != nil {
		return m[1]
	}
	return t
}

// tool is a tool of the registry as the command line knows it, from
// catalog.json: a command's help, options and sessionId come from it.
// Building the registry's definitions takes a shell command ~20 ms (their
// schemas are reflected and compiled); reading the catalog, well under
// one. TestCatalogIsCurrent holds the catalog to tools.Definitions, and
// -update rewrites it.
type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Group       string          `json:"group"`
	Session     bool            `json:"session,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

//go:embed catalog.json
var catalogJSON []byte

var (
	defsOnce sync.Once
	defs     map[string]tool
	defList  []tool
)

// catalogOf renders the registry's definitions as catalog.json holds them.
func catalogOf(ds []tools.Definition) ([]byte, error) {
	list := make([]tool, len(ds))
	for i, d := range ds {
		schema := d.Tool.RawInputSchema
		if len(schema) == 0 {
			b, err := json.Marshal(d.Tool.InputSchema)
			if err != nil {
				return nil, err
			}
			schema = b
		}
		list[i] = tool{Name: d.Tool.Name, Description: d.Tool.Description, Group: string(d.Group), Session: d.Session, InputSchema: schema}
	}
	return json.MarshalIndent(list, "", "\t")
}

// definition is the registry's tool of that name.
func definition(name string) (tool, bool) {
	defsOnce.Do(func() {
		if err := json.Unmarshal(catalogJSON, &defList); err != nil {
			panic("internal/cli/catalog.json: " + err.Error())
		}
		defs = map[string]tool{}
		for _, d := range defList {
			defs[d.Name] = d
		}
	})
	d, ok := defs[name]
	return d, ok
}

// lookup finds a command by name: an alias first, then a tool's own.
func lookup(name string) (*command, bool) {
	for _, c := range aliases() {
		if c.name == name {
			return c, true
		}
	}
	if d, ok := definition(name); ok {
		return generated(d), true
	}
	return nil, false
}

// closest is the command whose name is nearest to name, for a typo's
// "did you mean"; empty when none is near.
func closest(name string) string {
	names := []string{"help", "skill", "batch", "daemon", "serve"}
	for _, c := range aliases() {
		names = append(names, c.name)
	}
	definition("") // loads defList
	for _, d := range defList {
		names = append(names, d.Name)
	}
	return editdist.Nearest(name, names)
}

// generated is the command of a tool under its own name: its required
// arguments positional in order, every argument an option.
func generated(d tool) *command {
	var s struct {
		Required []string `json:"required"`
	}
	json.Unmarshal(d.InputSchema, &s)
	req := s.Required
	req = slices.DeleteFunc(slices.Clone(req), func(r string) bool { return r == "sessionId" && d.Session })
	args := make([]string, len(req))
	for i, r := range req {
		args[i] = "<" + r + ">"
	}
	return &command{name: d.Name, tool: d.Name, args: strings.Join(args, " "), summary: d.Description,
		max: len(req), generated: true}
}

// properties are a tool's arguments and their JSON types.
func properties(tool string) map[string]string {
	d, ok := definition(tool)
	if !ok {
		return nil
	}
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(d.InputSchema, &s)
	out := map[string]string{}
	for k, v := range s.Properties {
		t, _ := v.Type.(string)
		out[k] = t
	}
	return out
}

// parse reads a command's arguments: positionals, its own options, and
// options named after its tool's arguments (--timeout 2000), typed by the
// tool's schema. An option that is neither is refused and named.
func (c *command) parse(argv []string) (invocation, error) {
	inv := invocation{tool: c.tool, args: map[string]any{}, own: map[string]string{}}
	props := properties(c.tool)
	for _, t := range c.also {
		for k, v := range properties(t) {
			props[k] = v
		}
	}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			inv.pos = append(inv.pos, argv[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' || isNumber(a) {
			inv.pos = append(inv.pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(argv) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return argv[i], nil
		}
		if o, ok := c.option(name); ok {
			if o.isBool {
				if !hasVal {
					val = "true"
				}
				inv.own[o.name] = val
				continue
			}
			v, err := value()
			if err != nil {
				return inv, err
			}
			inv.own[o.name] = v
			continue
		}
		typ, ok := props[name]
		if !ok || (name == "sessionId" && !strings.HasPrefix(a, "--")) {
			return inv, fmt.Errorf("unknown option %s for %s", a, c.name)
		}
		if typ == "boolean" && !hasVal {
			inv.args[name] = true
			continue
		}
		v, err := value()
		if err != nil {
			return inv, err
		}
		if name == "ref" {
			// --ref @e12 names a ref as the positional @e12 does.
			v = refOrSelector(v)
		}
		x, err := typed(name, typ, v, inv.args[name])
		if err != nil {
			return inv, err
		}
		inv.args[name] = x
	}
	if len(inv.pos) == 0 && c.min > 0 && len(inv.args) > 0 && len(inv.own) == 0 && !c.generated &&
		c.build != nil && c.post == nil && c.local == nil && len(c.also) == 0 {
		// An alias shadows its tool's name, and its help names the tool's
		// arguments as options: given those and no positionals (click
		// --selector "#go"), it calls the tool with them as the tool's own
		// command would, and the tool names what is missing.
		return inv, nil
	}
	if len(inv.pos) < c.min || (c.max >= 0 && len(inv.pos) > c.max) {
		switch {
		case c.max == 0:
			return inv, fmt.Errorf("%s takes no arguments, got %q", c.name, inv.pos)
		case len(inv.pos) < c.min:
			return inv, fmt.Errorf("%s needs %s", c.name, c.args)
		default:
			return inv, fmt.Errorf("%s takes %s, got %d arguments: %q", c.name, c.args, len(inv.pos), inv.pos)
		}
	}
	if c.build != nil {
		tool, err := c.build(inv.pos, inv.own, inv.args)
		if err != nil {
			return inv, err
		}
		if tool != "" {
			inv.tool = tool
		}
		return inv, nil
	}
	if c.generated {
		// Positionals fill the required arguments no option gave, in
		// order.
		var missing []string
		for _, r := range strings.Fields(strings.NewReplacer("<", "", ">", "").Replace(c.args)) {
			if _, given := inv.args[r]; !given {
				missing = append(missing, r)
			}
		}
		if len(inv.pos) > len(missing) {
			return inv, fmt.Errorf("%s takes %s, got %d arguments: %q", c.name, c.args, len(inv.pos), inv.pos)
		}
		for i, p := range inv.pos {
			x, err := typed(missing[i], props[missing[i]], p, nil)
			if err != nil {
				return inv, err
			}
			inv.args[missing[i]] = x
		}
		if len(missing) > len(inv.pos) {
			return inv, fmt.Errorf("%s needs %s (positional, or as an option --%s)", c.name, c.args, missing[len(inv.pos)])
		}
	}
	return inv, nil
}

func (c *command) option(name string) (option, bool) {
	for _, o := range c.opts {
		if o.name == name || (o.short != "" && o.short == name) {
			return o, true
		}
	}
	return option{}, false
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// typed converts an option's value to its argument's JSON type: numbers
// and booleans parsed, objects and arrays as JSON, an array's plain
// values collected when repeated.
func typed(name, typ, v string, prev any) (any, error) {
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--%s takes an integer, got %q", name, v)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("--%s takes a number, got %q", name, v)
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("--%s takes true or false, got %q", name, v)
		}
		return b, nil
	case "string":
		return v, nil
	case "array":
		if strings.HasPrefix(strings.TrimSpace(v), "[") {
			var x []any
			if err := json.Unmarshal([]byte(v), &x); err != nil {
				return nil, fmt.Errorf("--%s: %v", name, err)
			}
			return x, nil
		}
		list, _ := prev.([]any)
		return append(list, v), nil
	}
	// An object, or a value of several shapes: JSON when it is JSON.
	var x any
	if json.Unmarshal([]byte(v), &x) == nil {
		return x, nil
	}
	if typ == "object" {
		return nil, fmt.Errorf("--%s takes a JSON object, got %q", name, v)
	}
	return v, nil
}

// allDefs are the registry's tools, in its order.
func allDefs() []tool {
	definition("")
	return defList
}
