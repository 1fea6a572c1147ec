package zlua

import "fmt"

// check validates Options before anything is created. The limits
// themselves live in C: the allocator (cgo/alloc.c) enforces MemoryLimit,
// the count hook (cgo/hook.c) the contexts of DoStringContext.
func (o Options) check() error {
	if o.Libs != LibsAll && o.Libs != LibsSafe {
		return fmt.Errorf("zlua: new: unknown %v", o.Libs)
	}
	if o.MemoryLimit < 0 {
		return fmt.Errorf("zlua: new: negative memory limit %d", o.MemoryLimit)
	}
	return nil
}
