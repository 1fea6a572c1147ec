package zlua

import (
	"context"
	"fmt"
	"reflect"
)

// A table a script made may carry metamethods that never return (a mod's
// config table whose __index loops). Get, Set, Len and Method run them;
// their Context variants run as limited calls, with the guarantees of
// DoStringContext: the metamethods stop when ctx is done, and the error
// matches ctx.Err() and *LuaError. A ctx already done fails at once; one
// that is never done (context.Background) is the plain call.

// GetContext is Get as a limited call under ctx.
func (t *Table) GetContext(ctx context.Context, key, out any) error {
	c, err := hostCtx(ctx)
	if err != nil {
		return fmt.Errorf("zlua: table get %s: %w", keyText(key), err)
	}
	return t.get("get", key, out, func(k any, v reflect.Value, over bool) error {
		return t.handle().GetContext(c, k, v, over)
	})
}

// SetContext is Set as a limited call under ctx.
func (t *Table) SetContext(ctx context.Context, key, value any) error {
	c, err := hostCtx(ctx)
	if err != nil {
		return fmt.Errorf("zlua: table set %s: %w", keyText(key), err)
	}
	return t.set("set", key, value, func(k, v any) error { return t.handle().SetContext(c, k, v) })
}

// LenContext is Len as a limited call under ctx (a __len that loops stops
// when ctx is done).
func (t *Table) LenContext(ctx context.Context) (int, error) {
	c, err := hostCtx(ctx)
	if err == nil && t == nil {
		err = errNilHandle
	}
	if err != nil {
		return 0, fmt.Errorf("zlua: table len: %w", err)
	}
	n, err := t.h.LenContext(c)
	if err != nil {
		return 0, opErrorf(err, "table len")
	}
	return n, nil
}

// MethodContext is Method with the lookup of the method (which runs
// __index) as a limited call under ctx. The calls of the bound func are
// not limited by ctx: bind a func whose first parameter is a
// context.Context to limit each call.
func (t *Table) MethodContext(ctx context.Context, name string, fnPtr any) error {
	rv, err := funcTarget(fnPtr)
	var c context.Context
	if err == nil {
		c, err = hostCtx(ctx)
	}
	if err == nil && t == nil {
		err = errNilHandle
	}
	if err != nil {
		return opErrorf(err, "table method %q", name)
	}
	f, err := t.h.MethodContext(c, name)
	if err != nil {
		return opErrorf(err, "table method %q", name)
	}
	bindFunc(t.h.Gate(), f, rv)
	return nil
}
