// Package strictjson decodes the Kubernetes objects tend accepts as JSON (a
// LifecycleHandler for a hook, a Probe) as the API server does under
// strict field validation. Hooks and probes both use it; neither owns it.
package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// Decode decodes one JSON value into v as the API server decodes a
// Pod under strict field validation (kubectl's default), so that a
// LifecycleHandler or Probe that tend accepts is one Kubernetes accepts:
//   - keys match the json tags case-sensitively: {"EXEC":…} is an unknown
//     field, not exec (encoding/json alone folds case);
//   - a key given twice in one object is an error, not "the last one wins";
//   - an unknown field, or anything after the value, is an error.
//
// The API server decodes with sigs.k8s.io/json: k8s.io/apimachinery's
// pkg/runtime/serializer/json/json.go (Serializer.unmarshal) calls
// UnmarshalCaseSensitivePreserveInts, and UnmarshalStrict for strict
// validation, whose decoder (internal/golang/encoding/json/decode.go,
// object()) looks fields up by exact name only when caseSensitive is set and
// reports "duplicate field" and "unknown field" with the field's path. tend
// keeps encoding/json (already in the binary; a second decoder would cost
// binary size) and checks keys first with checkFields, a walk over the
// tokens along v's type, with the same messages.
func Decode(s string, v any) error {
	if err := checkFields(json.NewDecoder(strings.NewReader(s)), reflect.TypeOf(v), ""); err != nil && !errors.Is(err, errNotWalked) {
		return err
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// errNotWalked stops checkFields where the JSON does not have the shape of
// the type (a number for an object, say): Decode then reports that itself.
var errNotWalked = errors.New("not the type's shape")

// checkFields reads one value from d, and checks every object that decodes
// into a struct: each key must be a field's exact JSON name, at most once.
// Values that hold no struct are skipped through Decode, which bounds their
// depth (encoding/json refuses nesting past 10,000).
func checkFields(d *json.Decoder, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	elem := t
	if t.Kind() == reflect.Slice {
		elem = t.Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
	}
	if elem.Kind() != reflect.Struct {
		var skip json.RawMessage
		return d.Decode(&skip)
	}
	tok, err := d.Token()
	switch {
	case err != nil:
		return err
	case tok == nil:
		return nil // null: an absent value, as for Decode
	case t.Kind() == reflect.Slice:
		if tok != json.Delim('[') {
			return errNotWalked
		}
		for i := 0; d.More(); i++ {
			if err := checkFields(d, elem, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	default:
		if tok != json.Delim('{') {
			return errNotWalked
		}
		if err := checkObject(d, t, path); err != nil {
			return err
		}
	}
	_, err = d.Token() // the closing ] or }
	return err
}

// checkObject checks the keys of an object whose { was read, and the
// values under them, up to its closing }.
func checkObject(d *json.Decoder, t reflect.Type, path string) error {
	if path != "" {
		path += "."
	}
	var seen []string // a handful of fields: a slice beats a map
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string) // an object's key is always a string
		f, ok := fieldByName(t, key)
		switch {
		case !ok:
			return fmt.Errorf("unknown field %s", excerpt.Quote(path+key))
		case contains(seen, key):
			return fmt.Errorf("duplicate field %s", excerpt.Quote(path+key))
		}
		seen = append(seen, key)
		if err := checkFields(d, f.Type, path+key); err != nil {
			return err
		}
	}
	return nil
}

// fieldByName finds the field whose JSON name is exactly name: its tag's
// name, or its Go name when it has none.
func fieldByName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
