package idlist

// Prune keeps the ids of list for which keep reports true, in place and in
// order. When more than half of list's capacity is still kept, it returns
// a copy with twice the capacity instead, so that the next prune comes
// after as many appends again.
func Prune(list []uint32, keep func(uint32) bool) []uint32 {
	kept := list[:0]
	for _, id := range list {
		if keep(id) {
			kept = append(kept, id)
		}
	}
	if len(kept) > cap(list)/2 {
		grown := make([]uint32, len(kept), 2*cap(list))
		copy(grown, kept)
		kept = grown
	}
	return kept
}
