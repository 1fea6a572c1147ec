package objreg

// index is the identity map Key → slot: open addressing with linear
// probing over a power-of-two table of slot numbers (0 is empty). An
// entry stores only its slot: its key is the slot's own address and
// binding (Slot.key), so an entry costs 4 bytes at a load of 3/8 to 3/4
// (5 to 11 bytes per live keyed object; a Go map[Key]uint32 costs 24 to
// 38). Deletion shifts the entries after it back (no tombstones), so a
// lookup never probes more than the run its key hashes into.
type index struct {
	t     []uint32
	n     int  // entries
	shift uint // 64 - log2(len(t))
}

// minIndex is the table size of the first keyed object.
const minIndex = 256

// home is the bucket key hashes to: Fibonacci hashing (the key times
// 2^64/φ, top bits), which spreads the regular strides of heap addresses.
func (x *index) home(k Key) int { return int((uint64(k) * 0x9E3779B97F4A7C15) >> x.shift) }

// find returns the bucket holding k, or -1.
func (x *index) find(slots []Slot, k Key) int {
	if x.n == 0 {
		return -1
	}
	mask := len(x.t) - 1
	for i := x.home(k); ; i = (i + 1) & mask {
		s := x.t[i]
		if s == 0 {
			return -1
		}
		if slots[s].key() == k {
			return i
		}
	}
}

// set maps k to slot, replacing an entry of the same key.
func (x *index) set(slots []Slot, k Key, slot uint32) {
	if (x.n+1)*4 > len(x.t)*3 {
		x.grow(slots)
	}
	mask := len(x.t) - 1
	i := x.home(k)
	for ; x.t[i] != 0; i = (i + 1) & mask {
		if slots[x.t[i]].key() == k {
			x.t[i] = slot
			return
		}
	}
	x.t[i] = slot
	x.n++
}

// grow doubles the table (or makes the first one) and reinserts every
// entry; slots holds their keys.
func (x *index) grow(slots []Slot) {
	size := 2 * len(x.t)
	if size == 0 {
		size = minIndex
	}
	x.rehash(slots, size)
}

// shrinkBelow is the load under which remove gives the table back: at
// 1/16 a table that a burst of objects grew halves until a quarter to
// three eighths of it is used, so a later growth is as far off as the
// shrink was (no table resized back and forth by a few objects).
const shrinkBelow = 16

// shrink makes the table the smallest power of two (at least minIndex)
// that holds the entries at a load of at most 3/8.
func (x *index) shrink(slots []Slot) {
	size := minIndex
	for size*3 < x.n*8 {
		size *= 2
	}
	if size < len(x.t) {
		x.rehash(slots, size)
	}
}

// rehash moves every entry into a new table of size slots (a power of
// two that holds them).
func (x *index) rehash(slots []Slot, size int) {
	old := x.t
	x.t = make([]uint32, size)
	x.shift = 64
	for n := size; n > 1; n >>= 1 {
		x.shift--
	}
	mask := size - 1
	for _, s := range old {
		if s != 0 {
			i := x.home(slots[s].key())
			for x.t[i] != 0 {
				i = (i + 1) & mask
			}
			x.t[i] = s
		}
	}
}

// remove deletes the entry of k if it is slot (a newer slot of the same
// key keeps its entry; see Registry.release).
func (x *index) remove(slots []Slot, k Key, slot uint32) {
	i := x.find(slots, k)
	if i < 0 || x.t[i] != slot {
		return
	}
	mask := len(x.t) - 1
	// Backward shift: an entry further in the run moves into the hole
	// when the hole lies between its home and where it sits.
	for j := (i + 1) & mask; x.t[j] != 0; j = (j + 1) & mask {
		h := x.home(slots[x.t[j]].key())
		if (j-h)&mask >= (j-i)&mask {
			x.t[i] = x.t[j]
			i = j
		}
	}
	x.t[i] = 0
	x.n--
	if len(x.t) > minIndex && x.n*shrinkBelow < len(x.t) {
		x.shrink(slots)
	}
}

// clear empties the index and frees its table.
func (x *index) clear() { *x = index{} }
