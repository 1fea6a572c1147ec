// Package bench compares zlua with the same operations done natively in C
// against the Lua C API (package native) and with gopher-lua, measured in
// the same run. make bench runs it and prints the ratios.
package bench
