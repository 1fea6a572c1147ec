package zlua

// Identity of handles. Each crossing of a Lua value into Go makes a new
// handle (a script passing the same function twice gives two *Function),
// so comparing the pointers does not tell whether two handles hold one
// Lua value; Same does, as rawequal (no __eq runs).

// Same reports whether t and other hold the same Lua table (rawequal: no
// __eq metamethod runs). A nil, released or copied handle, on either
// side, is an error, as for the handle's other uses, and so is a stale
// one of t's Env. Handles of two Envs are never the same: other is then
// not checked further (that would need its Env too). Call it on t's Env's
// goroutine.
func (t *Table) Same(other *Table) (bool, error) {
	if t == nil || other == nil {
		return false, opErrorf(errNilHandle, "table same")
	}
	same, err := t.h.Same(&other.h)
	return sameResult(same, err, "table same")
}

// Same reports whether f and other hold the same Lua function (rawequal),
// for instance to find a handler a script registered earlier when it asks
// to unregister it. For a method bound with Table.Method it compares the
// method's function, not the table. Otherwise as Table.Same.
func (f *Function) Same(other *Function) (bool, error) {
	if f == nil || other == nil {
		return false, opErrorf(errNilHandle, "function same")
	}
	same, err := f.h.Same(&other.h)
	return sameResult(same, err, "function same")
}

// Same reports whether th and other hold the same coroutine. Otherwise as
// Table.Same.
func (th *Thread) Same(other *Thread) (bool, error) {
	if th == nil || other == nil {
		return false, opErrorf(errNilHandle, "thread same")
	}
	same, err := th.h.Same(&other.h)
	return sameResult(same, err, "thread same")
}

// sameResult names the operation in the error of a handle comparison.
func sameResult(same bool, err error, op string) (bool, error) {
	if err != nil {
		return false, opErrorf(err, "%s", op)
	}
	return same, nil
}
