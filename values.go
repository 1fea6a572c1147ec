package zlua

// Values is a variable number of results. A Go function (or method)
// whose result has type Values returns its elements to Lua one by one, as
// many as it holds: none for an empty or nil Values, so
// select("#", f()) counts them, and `local a, b = f()` takes the first
// two. Each element converts as a result of type any does; with an error
// as the last result, a non-nil error raises instead. As a parameter,
// Values is an ordinary []any (a table converts to it); a variadic
// ...any parameter takes the rest of the arguments.
//
// In the other direction, a typed func bound with Env.GetFunction,
// Table.Method or Thread.BindResume whose last result (before a trailing
// error) has type Values receives every result of the Lua function from
// that position on, in their natural Go forms as Function.Call returns
// them: func() (Values, error) is Call's typed twin. Eval's last out of
// type *Values does the same. Handles among them (*Table, *Function,
// *Thread) are the caller's to keep or Release.
type Values []any
