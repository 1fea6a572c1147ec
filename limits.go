package zlua

import "fmt"

// check validates Options before anything is created. The limits
// themselves live in C: the allocator (cgo/alloc.c) enforces MemoryLimit,
// the hook (cgo/hook.c) and the watcher's signal (cgo/poke.c) the
// contexts of DoStringContext.
func (o Options) check() error {
	if o.Libs != LibsAll && o.Libs != LibsSafe {
		return fmt.Errorf("zlua: new: unknown %v", o.Libs)
	}
	if o.MemoryLimit < 0 {
		return fmt.Errorf("zlua: new: negative memory limit %d", o.MemoryLimit)
	}
	if o.Root != "" && !isName(o.Root) {
		return fmt.Errorf("zlua: new: root %q is not a Lua name", o.Root)
	}
	return nil
}

// root is the name of the root table (Options.Root).
func (o Options) root() string {
	if o.Root == "" {
		return RootTable
	}
	return o.Root
}

// isName reports whether s is a Lua name: letters, digits and
// underscores, not starting with a digit, not a reserved word.
func isName(s string) bool {
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	switch s {
	case "", "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto",
		"if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while":
		return false
	}
	return true
}
