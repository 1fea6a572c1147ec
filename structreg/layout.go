package structreg

import (
	"reflect"
	"strings"
	"sync"

	"github.com/zlua-go/zlua/cgo"
)

// Field is one exported field of a struct type as Lua sees it.
type Field struct {
	// Name is the Lua name (the Go name, or the lua:"name" tag).
	Name string
	// Index is the field's index path (promoted fields have several).
	Index []int
	// Type is the field's Go type.
	Type reflect.Type
	// Offset is the field's byte offset in the struct; meaningful for
	// blittable structs only.
	Offset uintptr
	// Kind is the C field kind (cgo.Sv*) when C serves the field: a
	// number or boolean in a blittable struct. 0 otherwise (nested
	// structs and arrays are served by Go, as copies).
	Kind int
}

// Layout describes a struct type for the StructRegistry.
type Layout struct {
	// Type is the struct type.
	Type reflect.Type
	// Name is the Lua-visible type name (__name, error messages).
	Name string
	// Blittable reports that values are copied into Lua memory (see
	// [Blittable]).
	Blittable bool
	// Fields maps Lua names to the exported fields, promoted ones
	// included; lua:"-" hides a field.
	Fields map[string]*Field
	// Order lists Fields in declaration order (for __tostring).
	Order []*Field
}

var layouts sync.Map // reflect.Type → *Layout

// LayoutOf returns the layout of the struct type t, computed once.
func LayoutOf(t reflect.Type) *Layout {
	if l, ok := layouts.Load(t); ok {
		return l.(*Layout)
	}
	l := &Layout{Type: t, Name: t.Name(), Blittable: Blittable(t), Fields: map[string]*Field{}}
	if l.Name == "" {
		l.Name = t.String()
	}
	for _, nf := range NamedFields(t) {
		f, name := nf.StructField, nf.Name
		fd := &Field{Name: name, Index: f.Index, Type: f.Type}
		if l.Blittable {
			fd.Offset, _ = OffsetOf(t, f.Index)
			fd.Kind = KindOf(f.Type)
		}
		l.Fields[name] = fd
		l.Order = append(l.Order, fd)
	}
	got, _ := layouts.LoadOrStore(t, l)
	return got.(*Layout)
}

// NamedField is an exported struct field that Lua sees, with its Lua name.
type NamedField struct {
	reflect.StructField
	// Name is the Lua name (the Go name, or the lua:"name" tag).
	Name string
	// Opts are the tag's options after the name (lua:"name,ref").
	Opts []string
}

// NamedFields lists the exported fields of struct t that Lua sees, promoted
// ones included (an embedded struct's fields after it), under their Lua
// names; lua:"-" hides a field. Go's selector rule decides which of the
// fields sharing a name is seen, applied to Lua names as encoding/json
// applies it to its names: the shallowest wins, then at one depth the one
// whose tag names it; fields still tied hide each other. Without tags
// this is the set reflect.VisibleFields gives; with them a tag can give a
// deeper field a name nothing else has (it is seen), or take a name
// another field has.
func NamedFields(t reflect.Type) []NamedField {
	var all []NamedField
	var tagged []bool
	var walk func(t reflect.Type, index []int, path map[reflect.Type]bool)
	walk = func(t reflect.Type, index []int, path map[reflect.Type]bool) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			f.Index = append(index[:len(index):len(index)], i)
			if name, opts, ok := FieldName(f); ok && f.IsExported() {
				tag, _, _ := strings.Cut(f.Tag.Get("lua"), ",")
				all = append(all, NamedField{StructField: f, Name: name, Opts: opts})
				tagged = append(tagged, tag != "")
			}
			if !f.Anonymous {
				continue
			}
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct && !path[et] { // a type embedding itself stops
				path[et] = true
				walk(et, f.Index, path)
				delete(path, et)
			}
		}
	}
	walk(t, nil, map[reflect.Type]bool{t: true})
	seen := map[string]int{} // Lua name → fields bearing it
	for _, f := range all {
		seen[f.Name]++
	}
	out := all[:0:0]
	for i, f := range all {
		if seen[f.Name] == 1 || dominant(all, tagged, i) {
			out = append(out, f)
		}
	}
	return out
}

// dominant reports whether all[i] wins its Lua name over the other fields
// bearing it (see NamedFields): shallower, or as deep and tagged where
// every other as deep is not.
func dominant(all []NamedField, tagged []bool, i int) bool {
	depth := len(all[i].Index)
	for j, o := range all {
		if j == i || o.Name != all[i].Name {
			continue
		}
		switch d := len(o.Index); {
		case d < depth:
			return false
		case d == depth && (tagged[j] || !tagged[i]):
			return false
		}
	}
	return true
}

// FieldName returns the Lua name of the struct field f: its tag
// lua:"name" or its Go name (lua:",opt" keeps the Go name), the tag's
// options after the name, and false for lua:"-" (hidden).
func FieldName(f reflect.StructField) (name string, opts []string, ok bool) {
	tag, tagged := f.Tag.Lookup("lua")
	if !tagged {
		return f.Name, nil, true
	}
	if tag == "-" {
		return "", nil, false
	}
	name, rest, more := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	if more {
		opts = strings.Split(rest, ",")
	}
	return name, opts, true
}

// OffsetOf returns the byte offset in struct t of the field at index path
// index; ok is false when the path goes through a pointer (an embedded
// *T), where no offset from t's start exists.
func OffsetOf(t reflect.Type, index []int) (off uintptr, ok bool) {
	for _, i := range index {
		if t.Kind() != reflect.Struct {
			return 0, false
		}
		f := t.Field(i)
		off += f.Offset
		t = f.Type
	}
	return off, true
}

// KindOf returns the C field kind (cgo.Sv*) of a number or boolean type,
// or 0 for any other type.
func KindOf(t reflect.Type) int {
	switch t.Kind() {
	case reflect.Int8:
		return cgo.SvI8
	case reflect.Int16:
		return cgo.SvI16
	case reflect.Int32:
		return cgo.SvI32
	case reflect.Int64:
		return cgo.SvI64
	case reflect.Int:
		if t.Size() == 8 {
			return cgo.SvInt
		}
		return cgo.SvI32
	case reflect.Uint8:
		return cgo.SvU8
	case reflect.Uint16:
		return cgo.SvU16
	case reflect.Uint32:
		return cgo.SvU32
	case reflect.Uint64:
		return cgo.SvU64
	case reflect.Uint, reflect.Uintptr:
		if t.Size() != 8 {
			return cgo.SvU32
		}
		if t.Kind() == reflect.Uint {
			return cgo.SvUint
		}
		return cgo.SvUintptr
	case reflect.Float32:
		return cgo.SvF32
	case reflect.Float64:
		return cgo.SvF64
	case reflect.Bool:
		return cgo.SvBool
	}
	return 0
}

// Blittable reports whether values of t may be copied byte for byte into
// C memory: fixed-size numbers, booleans, and arrays and structs of those.
func Blittable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Array:
		return Blittable(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !Blittable(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
