package callbackgate

import "github.com/zlua-go/zlua/cgo"

// A Go function's failure becomes the Lua error the trampoline raises
// after Go has returned: a text, an error value, an argument error in
// luaL_argerror's wording, or "not enough memory".

// raiseText raises text (with the caller's position) as a Lua error and
// remembers cause for the outermost caller.
func (g *Gate) raiseText(text string, cause error) int32 {
	slot, seq := 0, uint32(0)
	if cause != nil {
		slot, seq = g.remember(text, cause, true)
	}
	g.S.ProgReset()
	g.S.PutStr(text)
	if g.S.Commit() != nil {
		return g.raiseNoMemory()
	}
	g.S.MarkRaise(slot, seq) // the trampoline keeps the position it adds
	return cgo.StatusErrPos
}

func (g *Gate) raiseNoMemory() int32 {
	g.S.ProgReset()
	g.S.PutStr(ErrMemory.Error())
	if g.S.Commit() != nil {
		g.S.ProgReset()
		_ = g.S.Commit()
		return cgo.StatusReturn // cannot even say why: return nothing
	}
	return cgo.StatusError
}

// raiseError raises err, returned by a Go function, into Lua. A *LuaError
// of this state returned as is re-raises its original value (identity of
// tables and other error objects is kept).
func (g *Gate) raiseError(err error) int32 {
	le, direct := asLuaError(err)
	if !direct && wraps(err) {
		le = findLuaError(err)
	}
	if le != nil && (direct || le.val != nil) {
		g.S.ProgReset()
		ref, ours := le.valueRef(g)
		if ours {
			g.S.PutRef(int32(ref))
		} else {
			g.S.PutStr(le.Message)
		}
		if le.cause != nil {
			g.remember(le.Message, le.cause, false)
		}
		if !direct && ours {
			g.rememberWrapped(ref, err) // the wrapper stays its Go cause
		}
		if g.S.Commit() != nil {
			return g.raiseNoMemory()
		}
		return cgo.StatusError
	}
	return g.raiseText(err.Error(), err)
}

// wraps reports whether err wraps others (errors.As allocates, so plain
// errors skip it).
func wraps(err error) bool {
	switch err.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		return true
	}
	return false
}

// raiseArg raises "bad argument #n to 'name' (detail)". A positive argn
// counts the arguments as Lua passed them: called with method syntax, the
// error does not count self, as luaL_argerror's does (and names an error
// in self "calling 'name' on bad self"). A negative argn is -n for a Go
// method's nth argument after its receiver, named so with or without
// method syntax.
func (g *Gate) raiseArg(argn int, name string, err error) int32 {
	return g.raiseArgN(int64(argn), name, err)
}

// raiseMethodArg is raiseArg for a Go method's argument n (1-based after
// its receiver).
func (g *Gate) raiseMethodArg(n int, name string, err error) int32 {
	return g.raiseArgN(-int64(n), name, err)
}

// raiseArgN puts the argument error's program: argn with its sign (the
// trampoline's raise_argerror reads it).
func (g *Gate) raiseArgN(argn int64, name string, err error) int32 {
	if err == errReleased {
		return g.raiseText(err.Error(), nil)
	}
	g.S.ProgReset()
	g.S.PutInt(argn)
	g.S.PutStr(name)
	g.S.PutStr(err.Error())
	if g.S.Commit() != nil {
		return g.raiseNoMemory()
	}
	return cgo.StatusArgErr
}
