// Package shapegen writes callbackgate's shapes_gen.go: the closures that
// call Go functions (fastPlans), Go methods (methodShapes),
// func(*T, ...) functions (ptrShapes) and func(context.Context, ...)
// functions (ctxShapes) of common signatures without reflect.Value.Call
// and without allocating.
//
// Each closure is written out in full, one per signature, because the
// hottest path of a Lua→Go call runs through it: its argument reads are
// Frame.IntArg/FloatArg, which the compiler inlines, with a call to the
// slow reader only when they fail (a helper holding both is too big to be
// inlined). Writing them by hand repeated the same lines dozens of
// times; the signatures now live in one list (Shapes) and this package
// spells their closures. `go generate ./callbackgate` rewrites the file,
// and TestGeneratedShapesAreCurrent fails when it is stale.
package shapegen

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
)

// FastShapes are the signatures of fastPlans, plain Go functions; 'i'
// is Go's int here (a named type of it has no fast plan).
var FastShapes = []string{
	":", ":e", ":i", ":f", ":b", ":s",
	"i:i", "ii:i", "ii:ie", "f:f", "ff:f",
	"s:", "s:e", "s:s",
	// since the twenty-ninth round (outside probe C2-F1: these took
	// reflect.Value.Call, 3 to 11 allocations a call)
	"i:", "i:e", "i:ie", "i:b", "i:s", "i:f",
	"ii:", "ii:e", "ii:b",
	"f:", "f:e", "ff:", "ff:e", "fff:",
	"s:b", "s:i", "s:ie", "s:se",
	"si:", "si:e", "si:b", "si:ie",
	"is:", "is:e",
	"ss:", "ss:e", "ss:s", "ss:b",
}

// MethodShapes are the signatures of methodShapes, in shapeOf's letters
// (receiver excluded): parameters, ':', results.
var MethodShapes = []string{
	":", ":e", ":i", ":f", ":b", ":s", ":p", ":ff",
	"i:", "f:", "s:", "ff:", "ii:",
	"i:i", "f:f", "i:b",
	// since the twenty-ninth round (outside probe C2-F1: a method of
	// (int, string) bool took reflect.Value.Call, 6 allocations a call)
	"i:e", "i:ie", "i:f", "i:s", "f:e", "ff:e", "fff:", "ii:e", "ii:b",
	"s:e", "s:b", "s:i", "s:f", "s:s",
	"si:", "si:e", "si:b", "is:", "is:b",
}

// PtrShapes are the signatures of ptrShapes (the *T parameter excluded).
var PtrShapes = []string{
	":", ":e", ":i", ":f", ":b", ":s", ":p", ":ff",
	"i:", "f:", "s:", "ff:", "ii:",
	"i:i", "f:f", "i:b", "i:p",
}

// CtxShapes are the signatures of ctxShapes: plain Go functions whose
// first parameter is a context.Context (excluded here), with any int
// and int64 types ('i'), named ones included. Pointer results ('p') are
// left to the reflective plan.
var CtxShapes = []string{
	":", ":e", ":i", ":ie", ":f", ":b", ":s",
	"i:", "i:e", "i:i", "i:ie", "ii:e", "ii:ie",
	"f:", "f:e", "f:f",
	"s:", "s:e", "s:s", "s:b",
}

// family is what differs between the method and the func(*T, ...)
// closures: how the receiver is resolved, how the code is called, how
// Lua numbers the arguments after it, and how a pointer result returns.
type family struct {
	makeFunc, mapType string
	// idxBase is the Frame index of the first parameter of the shape
	// (after the receiver or *T for methods and ptrs).
	idxBase int
	// argBase is what Lua counts before the first parameter in its
	// error messages: method errors do not count the receiver, errors of
	// func(*T, ...) count the *T.
	argBase int
	// intType is the Go type an 'i' has in the called code.
	intType string
}

var (
	fast    = family{makeFunc: "makeFastPlans", mapType: "map[reflect.Type]callFunc", intType: "int"}
	methods = family{makeFunc: "makeMethodShapes", mapType: "map[string]methodMaker", idxBase: 1, intType: "int64"}
	ptrs    = family{makeFunc: "makePtrShapes", mapType: "map[string]ptrShapeMaker", idxBase: 1, argBase: 1, intType: "int64"}
	ctxs    = family{makeFunc: "makeCtxShapes", mapType: "map[string]callFunc", intType: "int64"}
)

// goType is the Go type of a shape letter as the called code of f sees it.
func goType(f family, letter byte) string {
	switch letter {
	case 'i':
		return f.intType
	case 'f':
		return "float64"
	case 's':
		return "string"
	case 'b':
		return "bool"
	case 'p':
		return "unsafe.Pointer"
	case 'e':
		return "error"
	}
	panic(fmt.Sprintf("shapegen: no Go type for letter %q", letter))
}

// funcType spells the func type a shape's code is called through: for
// methods and ptrs the receiver or *T as an unsafe.Pointer first, for
// ctxs the context.Context, then the shape's parameters.
func funcType(f family, params, results string) string {
	var in []string
	switch f {
	case ctxs:
		in = append(in, "context.Context")
	case methods, ptrs:
		in = append(in, "unsafe.Pointer")
	}
	for i := 0; i < len(params); i++ {
		in = append(in, goType(f, params[i]))
	}
	var out []string
	for i := 0; i < len(results); i++ {
		out = append(out, goType(f, results[i]))
	}
	s := "func(" + strings.Join(in, ", ") + ")"
	switch len(out) {
	case 0:
	case 1:
		s += " " + out[0]
	default:
		s += " (" + strings.Join(out, ", ") + ")"
	}
	return s
}

var argNames = []string{"a", "b", "c", "d"}

// intsOnly reports whether every parameter of params is an 'i' (and
// there is one).
func intsOnly(params string) bool {
	return params != "" && strings.Trim(params, "i") == ""
}

// writeHintedInts writes the path of a shape whose parameters are all
// integers when the trampoline read each through its hint (Lua 5.4:
// Frame.IntsHinted, one test of the frame's bits): the arguments are then
// read without the per-argument checks, pre runs, and the code is called
// (call, with a, b, ... in scope). Any other call goes on to writeArgs.
func writeHintedInts(w *bytes.Buffer, f family, params, results, pre, call string) {
	var mask uint
	var reads []string
	for i := 0; i < len(params); i++ {
		mask |= 1 << uint(i+f.idxBase)
		reads = append(reads, fmt.Sprintf("fr.IntAt(%d)", i+f.idxBase))
	}
	fmt.Fprintf(w, "if fr.IntsHinted(%#x) {\n%s := %s\n%s", mask,
		strings.Join(argNames[:len(params)], ", "), strings.Join(reads, ", "), pre)
	writeReturn(w, f, results, call)
	fmt.Fprintf(w, "}\n")
}

// writeArgs reads the shape's parameters into a, b, ... (Frame arguments
// 1 on); a failed read returns the status raised.
func writeArgs(w *bytes.Buffer, f family, params string) {
	for i := 0; i < len(params); i++ {
		v, idx, argn := argNames[i], i+f.idxBase, i+1+f.argBase
		if f == methods {
			argn = -argn // a method's argument, counted after its receiver (raiseArg)
		}
		switch params[i] {
		case 'i', 'f':
			kind := map[byte]string{'i': "Int", 'f': "Float"}[params[i]]
			fmt.Fprintf(w, "%s, ok := fr.%sArg(%d)\nif !ok {\n", v, kind, idx)
			if f == fast || f == ctxs { // no status variable before the first failure
				fmt.Fprintf(w, "var st int32\n")
			}
			fmt.Fprintf(w, "if %s, st = g.%sArgAt(fr, %d, %d, e.name); st != 0 {\nreturn st\n}\n}\n",
				v, strings.ToLower(kind), idx, argn)
		case 's':
			fmt.Fprintf(w, "%s, err := g.stringArg(fr, %d)\nif err != nil {\nreturn g.raiseArg(%d, e.name, err)\n}\n",
				v, idx, argn)
		default:
			panic(fmt.Sprintf("shapegen: no parameter reader for letter %q", params[i]))
		}
	}
}

// writeReturn calls the code (call is the call expression) and returns
// its results as the shape's result letters say.
func writeReturn(w *bytes.Buffer, f family, results, call string) {
	switch results {
	case "":
		fmt.Fprintf(w, "%s\nreturn g.ret0()\n", call)
	case "e":
		fmt.Fprintf(w, "if err := %s; err != nil {\nreturn g.fail(err)\n}\nreturn g.ret0()\n", call)
	case "i":
		if f.intType != "int64" {
			call = "int64(" + call + ")"
		}
		fmt.Fprintf(w, "return retInt(fr, %s)\n", call)
	case "ie":
		fmt.Fprintf(w, "r, err := %s\nif err != nil {\nreturn g.fail(err)\n}\nreturn retInt(fr, int64(r))\n", call)
	case "f":
		fmt.Fprintf(w, "return retNum(fr, %s)\n", call)
	case "b":
		fmt.Fprintf(w, "fr.ReturnBool(%s)\nreturn cgo.StatusReturn1\n", call)
	case "s":
		fmt.Fprintf(w, "return g.retStr(%s)\n", call)
	case "se":
		fmt.Fprintf(w, "r, err := %s\nif err != nil {\nreturn g.fail(err)\n}\nreturn g.retStr(r)\n", call)
	case "ff":
		fmt.Fprintf(w, "fr.ReturnNum2(%s)\nreturn cgo.StatusReturn2\n", call)
	case "p":
		if f == ptrs {
			fmt.Fprintf(w, "return g.retPtr(fr, %s, out, e.name)\n", call)
			return
		}
		// last is the binding bindingFor last gave for out: while it is
		// still the gate's last binding it is what bindingFor would
		// return, one pointer comparison instead of two reflect.Type
		// comparisons.
		fmt.Fprintf(w, "p := %s\nif p == nil {\nfr.ReturnNil()\nreturn cgo.StatusReturn1\n}\n", call)
		fmt.Fprintf(w, "if last == nil || last != g.lastBind {\npb, err := g.bindingFor(out, nil)\n"+
			"if err != nil {\nreturn g.retPtrAs(fr, p, out, nil, err, e.name)\n}\nlast = pb\n}\n"+
			"return g.retPtrAs(fr, p, out, last, nil, e.name)\n")
	default:
		panic(fmt.Sprintf("shapegen: no result writer for %q", results))
	}
}

// writeShape writes one map entry: the maker of a shape's closure.
func writeShape(w *bytes.Buffer, f family, shape string) {
	params, results, ok := strings.Cut(shape, ":")
	if !ok || len(params) > len(argNames) {
		panic(fmt.Sprintf("shapegen: bad shape %q", shape))
	}
	ft := funcType(f, params, results)
	var args []string
	switch f {
	case methods:
		args = append(args, "s.Ptr()")
	case ptrs:
		args = append(args, "p")
	case ctxs:
		args = append(args, "ctx")
	}
	for i := 0; i < len(params); i++ {
		if params[i] == 'i' && f.intType != "int64" {
			args = append(args, f.intType+"("+argNames[i]+")")
		} else {
			args = append(args, argNames[i])
		}
	}
	joined := strings.Join(args, ", ")
	if f == fast {
		fmt.Fprintf(w, "reflect.TypeFor[%s](): func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {\n", ft)
		call := fmt.Sprintf("e.fn.(%s)(%s)", ft, joined)
		if intsOnly(params) {
			writeHintedInts(w, f, params, results, "", call)
		}
		writeArgs(w, f, params)
		writeReturn(w, f, results, call)
		fmt.Fprintf(w, "},\n")
		return
	}
	if f == ctxs {
		// The context is read once the arguments are: a nested call
		// their conversion makes (a __index) has ended by then.
		fmt.Fprintf(w, "%q: func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {\n", shape)
		call := fmt.Sprintf("as[%s](funcCode(e.fn))(%s)", ft, joined)
		if intsOnly(params) {
			writeHintedInts(w, f, params, results, "ctx := g.callCtx()\n", call)
		}
		writeArgs(w, f, params)
		fmt.Fprintf(w, "ctx := g.callCtx()\n")
		writeReturn(w, f, results, call)
		fmt.Fprintf(w, "},\n")
		return
	}
	if f == methods {
		fmt.Fprintf(w, "%q: func(m *method, code unsafe.Pointer) callFunc {\n", shape)
		fmt.Fprintf(w, "f := as[%s](code)\n", ft)
		if results == "p" {
			fmt.Fprintf(w, "out := m.out[0]\n// a method belongs to one gate generation, like its bindings\nvar last *binding\n")
		}
		fmt.Fprintf(w, "return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {\n")
		// popThis's fast path written out (too big to be inlined)
		fmt.Fprintf(w, "var s *objreg.Slot\nvar st int32\nif slot, gen, tid, ok := fr.Self(); ok && tid == m.b.id {\ns = g.objs.Get(slot, gen)\n}\n")
		fmt.Fprintf(w, "if s == nil {\nif s, st = g.popThisSlow(fr, m.b, e.name); s == nil {\nreturn st\n}\n}\n")
		if intsOnly(params) {
			writeHintedInts(w, f, params, results, "", "f("+joined+")")
		}
		writeArgs(w, f, params)
		writeReturn(w, f, results, "f("+joined+")")
	} else {
		t := "_"
		if results == "p" {
			t = "t"
		}
		fmt.Fprintf(w, "%q: func(%s, pt reflect.Type) callFunc {\n", shape, t)
		if results == "p" {
			fmt.Fprintf(w, "out := t.Out(0)\n")
		}
		fmt.Fprintf(w, "return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {\n")
		fmt.Fprintf(w, "p, st, ok := g.ptrArg(fr, pt, e)\nif !ok {\nreturn st\n}\n")
		call := fmt.Sprintf("as[%s](funcCode(e.fn))(%s)", ft, joined)
		if intsOnly(params) {
			writeHintedInts(w, f, params, results, "", call)
		}
		writeArgs(w, f, params)
		writeReturn(w, f, results, call)
	}
	fmt.Fprintf(w, "}\n},\n")
}

func writeFamily(w *bytes.Buffer, f family, shapes []string, doc string) {
	fmt.Fprintf(w, "\n// %s %s\nfunc %s() %s {\nreturn %s{\n",
		f.makeFunc, doc, f.makeFunc, f.mapType, f.mapType)
	for _, s := range shapes {
		writeShape(w, f, s)
	}
	fmt.Fprintf(w, "}\n}\n")
}

// Source returns the gofmt'ed text of shapes_gen.go.
func Source() ([]byte, error) {
	var w bytes.Buffer
	w.WriteString("// Code generated by callbackgate/internal/shapegen; DO NOT EDIT.\n\n")
	w.WriteString("package callbackgate\n\nimport (\n\"context\"\n\"reflect\"\n\"unsafe\"\n\n\"github.com/zlua-go/zlua/cgo\"\n\"github.com/zlua-go/zlua/objreg\"\n)\n")
	writeFamily(&w, fast, FastShapes, "makes fastPlans (fastpath.go).")
	writeFamily(&w, methods, MethodShapes, "makes the closures of methodShapes (methods.go).")
	writeFamily(&w, ptrs, PtrShapes, "makes the closures of ptrShapes (ptrfuncs.go).")
	writeFamily(&w, ctxs, CtxShapes, "makes ctxShapes (ctxparam.go).")
	return format.Source(w.Bytes())
}
