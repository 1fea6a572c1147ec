// Package idlist prunes the lists of slot and function ids that zlua's
// registries keep between a push and the outermost return of a call (ids
// whose Lua value may not exist yet). A long call can hand out many ids;
// pruning drops the ones that no longer need watching when a list fills,
// so the list stays bounded without costing more than amortized O(1) per
// id appended.
package idlist
