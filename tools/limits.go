package tools

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Every argument is bounded here, in one place, before it is decoded: a
// number by its range, a string by its size. The bounds live in the input
// structs' tags, which the README's table of limits is checked against:
//
//	Timeout int    `json:"timeout,omitempty" range:"0,300000"`
//	URL     string `json:"url" size:"65536"`
//
// A numeric argument without a range tag panics at startup. A string
// without a size tag may hold DefaultMaxString bytes; the limit applies to
// each element of a string array and to each key and value of a string map.
// Free-form JSON (evaluate's args, a saved state) is bounded only by the
// message size (--max-message-size).

// DefaultMaxString is the size limit, in bytes, of a string argument that
// names none: a selector, a ref, a key, a name.
const DefaultMaxString = 16 << 10

// bound is the limit of one argument, found at a path of JSON names.
type bound struct {
	path     []string // JSON names from the arguments object down
	number   bool
	min, max float64
	size     int // strings: most bytes
	// each marks a path ending in an array or a map whose elements (and
	// map keys) the bound applies to.
	each bool
}

// name is the argument's dotted name, as an error quotes it.
func (b bound) name() string { return strings.ReplaceAll(strings.Join(b.path, "."), ".*", "[]") }

// boundsOf reads the bounds of every argument of an input type. It panics
// on a numeric field without a valid range tag, so that a tool cannot be
// defined with an unbounded number.
func boundsOf(t reflect.Type) []bound {
	var out []bound
	var walk func(t reflect.Type, path []string)
	walk = func(t reflect.Type, path []string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				walk(f.Type, path)
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := append(append([]string{}, path...), name)
			ft, each := f.Type, false
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map {
				if ft.Kind() == reflect.Map && ft.Key().Kind() != reflect.String {
					continue
				}
				ft, each = ft.Elem(), true
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
			}
			switch ft.Kind() {
			case reflect.Struct:
				if each {
					// Arrays of objects are bounded by the message size;
					// their fields still get their own bounds below.
					p = append(p, "*")
				}
				walk(ft, p)
			case reflect.String:
				b := bound{path: p, size: DefaultMaxString, each: each}
				if s := f.Tag.Get("size"); s != "" {
					n, err := strconv.Atoi(s)
					if err != nil || n <= 0 {
						panic(fmt.Sprintf("tools: %s.%s: bad size tag %q", t.Name(), f.Name, s))
					}
					b.size = n
				}
				out = append(out, b)
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
				reflect.Float32, reflect.Float64:
				lo, hi, ok := parseRange(f.Tag.Get("range"))
				if !ok {
					panic(fmt.Sprintf("tools: %s.%s: a numeric argument needs a range tag, e.g. range:\"0,60000\"", t.Name(), f.Name))
				}
				out = append(out, bound{path: p, number: true, min: lo, max: hi, each: each})
			}
		}
	}
	walk(t, nil)
	return out
}

func parseRange(s string) (lo, hi float64, ok bool) {
	a, b, found := strings.Cut(s, ",")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseFloat(a, 64)
	hi, err2 := strconv.ParseFloat(b, 64)
	return lo, hi, err1 == nil && err2 == nil && lo <= hi
}

// checkBounds checks args against bs: INVALID_PARAMETERS naming the field
// and its range or size, quoting none of an oversized value. A value of the
// wrong type is left to the decoder, which names the type.
func checkBounds(bs []bound, args map[string]any) error {
	for _, b := range bs {
		if err := b.check(args, b.path); err != nil {
			return err
		}
	}
	return nil
}

func (b bound) check(v any, path []string) error {
	if len(path) > 0 {
		switch c := v.(type) {
		case map[string]any:
			if path[0] == "*" {
				return nil // only arrays hold "*"
			}
			return b.check(c[path[0]], path[1:])
		case []any:
			if path[0] != "*" {
				return nil
			}
			for _, e := range c {
				if err := b.check(e, path[1:]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if b.each {
		switch c := v.(type) {
		case []any:
			for _, e := range c {
				if err := b.one(e); err != nil {
					return err
				}
			}
			return nil
		case map[string]any:
			for k, e := range c {
				if err := b.one(k); err != nil {
					return err
				}
				if err := b.one(e); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return b.one(v)
}

func (b bound) one(v any) error {
	field := b.name()
	if b.number {
		n, ok := number(v)
		if !ok {
			return nil
		}
		if math.IsNaN(n) || n < b.min || n > b.max {
			return engine.Errorf(engine.InvalidParameters, "%s must be between %s and %s, got %s", field,
				strconv.FormatFloat(b.min, 'f', -1, 64), strconv.FormatFloat(b.max, 'f', -1, 64), clip(strconv.FormatFloat(n, 'g', -1, 64))).
				With("field", field).With("min", b.min).With("max", b.max)
		}
		return nil
	}
	s, ok := v.(string)
	if ok && len(s) > b.size {
		return engine.Errorf(engine.InvalidParameters, "%s is %d bytes, more than its limit of %d bytes (it begins %q)", field, len(s), b.size, clip(s)).
			With("field", field).With("maxBytes", b.size).With("bytes", len(s))
	}
	return nil
}
