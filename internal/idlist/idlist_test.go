package idlist

import (
	"slices"
	"testing"
)

func TestPruneKeepsInOrderAndInPlace(t *testing.T) {
	list := make([]uint32, 0, 8)
	list = append(list, 1, 2, 3, 4, 5, 6, 7, 8)
	got := Prune(list, func(id uint32) bool { return id%3 == 0 })
	if !slices.Equal(got, []uint32{3, 6}) || cap(got) != 8 || &got[0] != &list[0] {
		t.Errorf("Prune = %v (cap %d), want [3 6] in the same array", got, cap(got))
	}
}

func TestPruneGrowsWhenMostStay(t *testing.T) {
	list := []uint32{1, 2, 3, 4}
	got := Prune(list, func(id uint32) bool { return id != 2 })
	if !slices.Equal(got, []uint32{1, 3, 4}) || cap(got) != 8 {
		t.Errorf("Prune = %v (cap %d), want [1 3 4] with capacity 8", got, cap(got))
	}
	if list[1] != 3 { // compacted in place before the copy
		t.Errorf("list = %v", list)
	}
}
