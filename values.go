package zlua

// Values is a variable number of results. A Go function (or method)
// whose result has type Values returns its elements to Lua one by one, as
// many as it holds: none for an empty or nil Values, so
// select("#", f()) counts them, and `local a, b = f()` takes the first
// two. Each element converts as a result of type any does; with an error
// as the last result, a non-nil error raises instead. As a parameter,
// Values is an ordinary []any (a table converts to it); a variadic
// ...any parameter takes the rest of the arguments.
type Values []any
