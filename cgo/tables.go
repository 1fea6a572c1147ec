package cgo

/*
#include "zlua.h"

// zlua_push_globals pushes the global table: a registry read (5.4) or a
// pseudo-index copy (LuaJIT), neither allocates. [-0, +1]
static void zlua_push_globals(lua_State *L) { zlua_pushglobaltable(L); }
#cgo nocallback zlua_push_globals

// zlua_nextpair walks a table for Go with one crossing per pair (decoding
// a table into a struct otherwise costs four: next, gettop and two reads).
// first: it pushes nil, the first key [-0, +1]; else the stack ends in
// [key, value] and it drops the value [-1, +0]. Then lua_next: for a next
// pair it reads key and value into kv[0], kv[1], leaves them on the stack
// and returns the value's index; at the end it returns 0 with both slots
// gone. [go-safe]: lua_next with nil or a key it returned and
// zlua_read_arg neither allocate nor raise; it needs two free slots.
static int zlua_nextpair(lua_State *L, int idx, zlua_arg *kv, int first)
{
	if (first)
		lua_pushnil(L);
	else
		lua_pop(L, 1);
	if (!lua_next(L, idx))
		return 0;
	zlua_read_arg(NULL, L, -2, &kv[0]);
	zlua_read_arg(NULL, L, -1, &kv[1]);
	return lua_gettop(L);
}
#cgo noescape zlua_nextpair
#cgo nocallback zlua_nextpair

// zlua_countpairs counts the pairs of the table at idx in one crossing
// and sets *seq when its keys are exactly the integers 1..n (n the count,
// at least 1): a sequence, whatever the border # would pick or the holes
// other keys could balance. LuaJIT keys are doubles: an integral one is
// taken as that integer. [-0, +0]; [go-safe] as zlua_nextpair; it needs
// two free slots.
static int zlua_countpairs(lua_State *L, int idx, int *seq)
{
	int n = 0, ok = 1;
	long long max = 0, k;
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		n++;
		if (ok) {
#ifdef ZLUA_LUAJIT
			lua_Number d = lua_type(L, -2) == LUA_TNUMBER ? lua_tonumber(L, -2) : 0;
			k = d >= 1 && d <= 2147483647.0 && d == (lua_Number)(long long)d ? (long long)d : 0;
#else
			k = lua_isinteger(L, -2) ? (long long)lua_tointeger(L, -2) : 0;
#endif
			if (k < 1)
				ok = 0;
			else if (k > max)
				max = k;
		}
		lua_pop(L, 1);
	}
	*seq = ok && n > 0 && max == n;
	return n;
}
#cgo noescape zlua_countpairs
#cgo nocallback zlua_countpairs

#define ZLUA_PAIRS_MAX 16
#define ZLUA_SEQ_MAX 128

// zlua_readpairs reads every pair of the table at idx into kv in one
// crossing (keys at even, values at odd positions: keys other than
// strings, numbers and booleans keep only their type; strings read in place,
// valid while the table holds them and is not changed), for decoding a
// flat table into a struct. It returns the number of pairs, or -1 when the
// table has more than ZLUA_PAIRS_MAX pairs or a value other than a
// boolean, number or string (such a value needs the stack: the caller
// walks with zlua_nextpair). [-0, +0]; [go-safe] as zlua_nextpair; it
// needs two free slots.
// read_scalar: zlua_read_arg for a value whose type t is known, with
// one API call fewer; only strings, numbers and booleans are read (other
// types keep their type and a zero value). [-0, +0]
static void read_scalar(lua_State *L, int i, int t, zlua_arg *a)
{
	a->type = t;
	a->isint = 0;
	a->len = 0;
	a->v.i = 0;
	switch (t) {
	case LUA_TSTRING:
		a->v.s = lua_tolstring(L, i, &a->len);
		break;
	case LUA_TNUMBER:
#ifndef ZLUA_LUAJIT
		if (lua_isinteger(L, i)) {
			a->isint = 1;
			a->v.i = lua_tointeger(L, i);
			break;
		}
#endif
		a->v.n = lua_tonumber(L, i);
		break;
	case LUA_TBOOLEAN:
		a->v.b = lua_toboolean(L, i);
		break;
	}
}

static int zlua_readpairs(lua_State *L, int idx, zlua_arg *kv)
{
	int n = 0, top = lua_gettop(L), vt;
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		vt = lua_type(L, -1);
		if (n == ZLUA_PAIRS_MAX || vt == LUA_TLIGHTUSERDATA || vt > LUA_TSTRING) {
			lua_settop(L, top);
			return -1;
		}
		read_scalar(L, -2, lua_type(L, -2), &kv[2 * n]);
		read_scalar(L, -1, vt, &kv[2 * n + 1]);
		lua_pop(L, 1);
		n++;
	}
	return n;
}
#cgo noescape zlua_readpairs
#cgo nocallback zlua_readpairs

// zlua_readseq reads t[first], t[first+1], ... (raw, at most n) of the
// table at idx into buf in one crossing, for the sequence decoders (one
// element otherwise costs four crossings: rawgeti, gettop, a read, a pop).
// It stops before the first value whose type is not in accept (bit
// 1<<type; only nil, boolean, number and string may be in it: other
// values need the stack, and Go reads them there) and returns how many it
// read. Strings are read in place, valid while the table holds them and
// is unchanged. [-0, +0]; [go-safe]: lua_rawgeti on a table and
// read_scalar neither allocate nor raise; it needs one free slot.
static int zlua_readseq(lua_State *L, int idx, long long first, int n, unsigned accept, zlua_arg *buf)
{
	int i, t;
	for (i = 0; i < n; i++) {
		t = zlua_rawgeti_type(L, idx, first + i);
		if (!(accept >> t & 1u)) {
			lua_pop(L, 1);
			break;
		}
		read_scalar(L, -1, t, &buf[i]);
		lua_pop(L, 1);
	}
	return i;
}
#cgo noescape zlua_readseq
#cgo nocallback zlua_readseq

// zlua_nextpairs goes on with a traversal of the table at idx whose last
// key is on top (nil to begin), reading up to max pairs into kv (keys at
// even, values at odd positions) in one crossing, for the map decoders
// (one pair otherwise costs five: next, gettop, two reads, a pop). It
// returns how many it read and sets *state: 0 at the end (the key is
// gone), 1 with max pairs read (the last key on top), 2 before a pair
// whose key type is not in kaccept or value type not in vaccept (masks as
// zlua_readseq's): that pair, unread, is on top as [key, value]. Strings
// are read in place, valid while the table holds them and is unchanged.
// [-1, +(0|1|2)]; [go-safe] as zlua_nextpair; it needs two free slots.
static int zlua_nextpairs(lua_State *L, int idx, int max, unsigned kaccept, unsigned vaccept, zlua_arg *kv, int *state)
{
	int n = 0, kt, vt;
	for (;;) {
		if (n == max) {
			*state = 1;
			return n;
		}
		if (!lua_next(L, idx)) {
			*state = 0;
			return n;
		}
		kt = lua_type(L, -2);
		vt = lua_type(L, -1);
		if (!(kaccept >> kt & 1u) || !(vaccept >> vt & 1u)) {
			*state = 2;
			return n;
		}
		read_scalar(L, -2, kt, &kv[2 * n]);
		read_scalar(L, -1, vt, &kv[2 * n + 1]);
		lua_pop(L, 1);
		n++;
	}
}
#cgo noescape zlua_nextpairs
#cgo nocallback zlua_nextpairs

// zlua_callable_raw reports whether the value at idx is one Lua can call:
// a function, or a value whose metatable has a non-nil __call (what
// Lua's call and zlua_callable test). It walks the metatable with
// lua_next instead of looking "__call" up: pushing the key string could
// run a collection step on LuaJIT, and a finalizer's error would be
// raised. [go-safe]: lua_getmetatable and lua_next from a nil key
// neither allocate nor raise; it needs three free slots. [-0, +0]
static int zlua_callable_raw(lua_State *L, int idx)
{
	int found = 0;
	size_t n;
	const char *k;
	if (lua_type(L, idx) == LUA_TFUNCTION)
		return 1;
	if (!lua_getmetatable(L, idx))
		return 0;
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		if (lua_type(L, -2) == LUA_TSTRING) {
			k = lua_tolstring(L, -2, &n);
			if (n == 6 && memcmp(k, "__call", 6) == 0) {
				found = !lua_isnil(L, -1);
				lua_pop(L, 2);
				break;
			}
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return found;
}
#cgo noescape zlua_callable_raw
#cgo nocallback zlua_callable_raw

// zlua_unrefs releases n registry refs in one crossing (the pump drains
// refs queued by Go in batches). [go-safe] as zlua_unref: luaL_unref
// stores into slots the registry has. [-0, +0]
static void zlua_unrefs(lua_State *L, const int32_t *refs, int n)
{
	int i;
	for (i = 0; i < n; i++)
		luaL_unref(L, LUA_REGISTRYINDEX, refs[i]);
}
#cgo noescape zlua_unrefs
#cgo nocallback zlua_unrefs
*/
import "C"

import "unsafe"

// Protected operations on Lua values Go holds (tables.c). The object is
// the one stack argument (nargs 1) or the program's first value.
const (
	// OpIndex leaves obj[key] (metamethods run). Program: [obj,] key.
	OpIndex = int(C.ZLUA_DO_INDEX)
	// OpNewIndex does obj[key] = value. Program: [obj,] key, value.
	OpNewIndex = int(C.ZLUA_DO_NEWINDEX)
	// OpLen leaves the length of obj as Lua 5.4's # does (__len honoured
	// on both backends). Program: [obj].
	OpLen = int(C.ZLUA_DO_LEN)
	// OpPairs leaves a new sequence {k1, v1, k2, v2, ...} of the table's
	// pairs in raw next order. Program: [obj].
	OpPairs = int(C.ZLUA_DO_PAIRS)
	// OpMethod leaves obj[key] (metamethods run) and a boolean: whether
	// Lua can call it (a function, or a value whose metatable has
	// __call). Program: [obj,] key.
	OpMethod = int(C.ZLUA_DO_METHOD)
	// OpRawIndex leaves rawget(obj, key). Program: [obj,] key.
	OpRawIndex = int(C.ZLUA_DO_RAWINDEX)
	// OpRawNewIndex does rawset(obj, key, value). Program: [obj,] key, value.
	OpRawNewIndex = int(C.ZLUA_DO_RAWNEWINDEX)
	// OpRawLen leaves the raw length of obj. Program: [obj].
	OpRawLen = int(C.ZLUA_DO_RAWLEN)
	// OpGetMeta leaves obj's metatable, or nil (no __metatable field
	// consulted). Program: [obj].
	OpGetMeta = int(C.ZLUA_DO_GETMETA)
	// OpSetMeta sets obj's metatable to mt, a table or nil. Program:
	// [obj,] mt.
	OpSetMeta = int(C.ZLUA_DO_SETMETA)
	// OpPreload leaves the table require's preload searcher reads, or
	// nil: Lua 5.4's registry._PRELOAD, LuaJIT's preload field of the
	// package table the libraries opened (not the global package, which a
	// script may replace). Program: none.
	OpPreload = int(C.ZLUA_DO_PRELOAD)
)

// Unrefs releases the registry refs of refs in one crossing. On LuaJIT,
// when the collection after a refusal of the memory limit left the heap
// over half full (refusal_full), the next outermost operation collects
// first: what the refs held may be most of that heap, and LuaJIT refuses
// an allocation without collecting. Between calls only.
func (s *State) Unrefs(refs []int32) {
	if len(refs) > 0 {
		C.zlua_unrefs(s.env.L, (*C.int32_t)(unsafe.Pointer(&refs[0])), C.int(len(refs)))
		if s.env.refusal_full != 0 {
			s.env.refusal_full = 0
			s.env.mem_refused = 1
		}
	}
}

// Unrefs releases registry refs on t, the thread running a Go call (its
// one free stack slot suffices), while Lua code runs. It stores into
// slots the registry has, so it never allocates and never raises: the
// refs were live, and the freelist key exists from the state's boot (Lua
// 5.4 creates it with the first ref; on LuaJIT boot stores 0 into
// registry[0], state.c). [go-safe]
func (t Thread) Unrefs(refs []int32) {
	if len(refs) > 0 {
		C.zlua_unrefs(t.p, (*C.int32_t)(unsafe.Pointer(&refs[0])), C.int(len(refs)))
	}
}

// MaxPairs is the most pairs ReadPairs reads.
const MaxPairs = int(C.ZLUA_PAIRS_MAX)

// Pairs receives a table's pairs from ReadPairs: key 2i, value 2i+1.
type Pairs [2 * MaxPairs]Arg

// ReadPairs reads every pair of the table at absolute index idx into kv
// and returns how many; -1 when there are more than MaxPairs or a value
// that is not a boolean, number or string (walk with NextPair then).
// Strings are views valid while the table is unchanged. [go-safe]; it
// needs two free slots.
func (t Thread) ReadPairs(idx int, kv *Pairs) int {
	return int(C.zlua_readpairs(t.p, C.int(idx), (*C.zlua_arg)(unsafe.Pointer(&kv[0]))))
}

// CountPairs returns the number of pairs of the table at absolute index
// idx and whether its keys are exactly the integers 1..n (a sequence: n
// at least 1, no hole, no other key), in one crossing. [go-safe]; it
// needs two free slots.
func (t Thread) CountPairs(idx int) (n int, seq bool) {
	var s C.int
	n = int(C.zlua_countpairs(t.p, C.int(idx), &s))
	return n, s != 0
}

// PushGlobals pushes the global table (never raises: a registry read).
func (t Thread) PushGlobals() { C.zlua_push_globals(t.p) }

// NextPair walks the table at absolute index idx: the first call (first
// true) starts the traversal, each call returns the next pair read into kv
// with key and value left on the stack, and the value's index (the key is
// below it); 0 at the end, with both slots gone. Stopping early, the
// caller pops the two slots. [go-safe]; it needs two free slots.
func (t Thread) NextPair(idx int, kv *[2]Arg, first bool) int {
	f := C.int(0)
	if first {
		f = 1
	}
	return int(C.zlua_nextpair(t.p, C.int(idx), (*C.zlua_arg)(unsafe.Pointer(&kv[0])), f))
}

// SeqMax is the most values ReadSeq reads, and twice the most pairs
// NextPairs reads, in one crossing.
const SeqMax = int(C.ZLUA_SEQ_MAX)

// Seq receives values from ReadSeq, or pairs from NextPairs (key 2i,
// value 2i+1).
type Seq [SeqMax]Arg

// Scalars is the mask of the types ReadSeq and NextPairs can read:
// nil, boolean, number and string. Other types always stop them.
const Scalars = 1<<TNil | 1<<TBoolean | 1<<TNumber | 1<<TString

// ReadSeq reads t[first], t[first+1], ... (raw, at most n, n <= SeqMax)
// of the table at absolute index idx into buf in one crossing, and
// returns how many it read: it stops before the first value whose type is
// not in accept (a mask of 1<<type within Scalars). Strings are views
// valid while the table is unchanged. [go-safe]; it needs one free slot.
func (t Thread) ReadSeq(idx int, first int64, n int, accept uint, buf *Seq) int {
	return int(C.zlua_readseq(t.p, C.int(idx), C.longlong(first), C.int(n), C.unsigned(accept&Scalars),
		(*C.zlua_arg)(unsafe.Pointer(&buf[0]))))
}

// Pairs states of NextPairs.
const (
	PairsEnd  = 0 // the traversal ended; the key is gone
	PairsMore = 1 // buf is full; the last key is on top
	PairsStop = 2 // an unread pair is on top as [key, value]
)

// NextPairs goes on with a traversal of the table at absolute index idx
// whose last key is on top (nil to begin): it reads up to SeqMax/2 pairs
// into buf (key 2i, value 2i+1) in one crossing and returns how many and
// a Pairs state. It stops before a pair whose key type is not in kaccept
// or whose value type is not in vaccept (masks as ReadSeq's) and leaves
// that pair on the stack (PairsStop): the caller reads it there, pops the
// value and calls again. Strings are views valid while the table is
// unchanged. [go-safe]; it needs two free slots.
func (t Thread) NextPairs(idx int, kaccept, vaccept uint, buf *Seq) (n, state int) {
	var st C.int
	n = int(C.zlua_nextpairs(t.p, C.int(idx), C.int(SeqMax/2), C.unsigned(kaccept&Scalars), C.unsigned(vaccept&Scalars),
		(*C.zlua_arg)(unsafe.Pointer(&buf[0])), &st))
	return n, int(st)
}

// Callable reports whether the value at idx is one Lua can call: a
// function, or a table or userdata whose metatable has __call. [go-safe];
// it needs three free slots.
func (t Thread) Callable(idx int) bool { return C.zlua_callable_raw(t.p, C.int(idx)) != 0 }
