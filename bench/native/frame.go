package native

// The native C rows of the frame workload: the entities are C structs in
// Lua userdata (anchored by a registry ref while they are in the world),
// their methods and fields lua_CFunctions, and the world a C array. Go
// drives the frame exactly as it drives zlua's: one call of the Lua
// function frame(dt) per frame, then the spawn/despawn events, each one
// Go→C call that calls the Lua handler on_spawn(e) or on_despawn(e).

/*
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>

typedef struct NWorld NWorld;

// NEntity is the C twin of the benchmark's Go Entity.
typedef struct {
	long long id, hp;
	double x, y, vx;
	NWorld *w;
	int index; // position in w->ents
	int ref;   // registry ref: the world holds the userdata
} NEntity;

struct NWorld {
	NEntity **ents;
	int n, cap;
	long long next_id, hits;
	const char *mt; // metatable of new entities: "NEntity" or "NFieldEntity"
	int frame_ref, spawn_ref, despawn_ref;
};

// nent_gc: a no-op __gc, so native entities pay for finalization as zlua's
// objects do.
static int nent_gc(lua_State *L) { (void)L; return 0; }

// The method-style entity: e:Position(), e:Move(dx, dy), e:Neighbour(),
// e:Damage(n), from a methods table (__index is a table).

static int nent_position(lua_State *L)
{
	NEntity *e = (NEntity *)luaL_checkudata(L, 1, "NEntity");
	lua_pushnumber(L, e->x);
	lua_pushnumber(L, e->y);
	return 2;
}

static int nent_move(lua_State *L)
{
	NEntity *e = (NEntity *)luaL_checkudata(L, 1, "NEntity");
	e->x += luaL_checknumber(L, 2);
	e->y += luaL_checknumber(L, 3);
	return 0;
}

// nent_neighbour returns the next entity of the world: its userdata comes
// back from the registry, so it is the same Lua value every time.
static int nent_neighbour(lua_State *L)
{
	NEntity *e = (NEntity *)luaL_checkudata(L, 1, "NEntity");
	NWorld *w = e->w;
	lua_rawgeti(L, LUA_REGISTRYINDEX, w->ents[(e->index + 1) % w->n]->ref);
	return 1;
}

static int nent_damage(lua_State *L)
{
	NEntity *e = (NEntity *)luaL_checkudata(L, 1, "NEntity");
	e->hp -= luaL_checkinteger(L, 2);
	e->w->hits++;
	lua_pushboolean(L, e->hp > 0);
	return 1;
}

// The field-style entity: e.X, e.VX (numbers) and e.HP (integer) read and
// written by a C __index/__newindex, and the method e:Hit(n), which
// __index returns from its upvalue.

static int nfent_hit(lua_State *L)
{
	NEntity *e = (NEntity *)luaL_checkudata(L, 1, "NFieldEntity");
	e->hp -= luaL_checkinteger(L, 2);
	e->w->hits++;
	return 0;
}

static int nfent_index(lua_State *L)
{
	NEntity *e = (NEntity *)luaL_checkudata(L, 1, "NFieldEntity");
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "X") == 0)
		lua_pushnumber(L, e->x);
	else if (strcmp(k, "VX") == 0)
		lua_pushnumber(L, e->vx);
	else if (strcmp(k, "HP") == 0)
		lua_pushinteger(L, e->hp);
	else if (strcmp(k, "Hit") == 0)
		lua_pushvalue(L, lua_upvalueindex(1));
	else
		return luaL_error(L, "NFieldEntity has no field or method '%s'", k);
	return 1;
}

static int nfent_newindex(lua_State *L)
{
	NEntity *e = (NEntity *)luaL_checkudata(L, 1, "NFieldEntity");
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "X") == 0)
		e->x = luaL_checknumber(L, 3);
	else if (strcmp(k, "VX") == 0)
		e->vx = luaL_checknumber(L, 3);
	else if (strcmp(k, "HP") == 0)
		e->hp = luaL_checkinteger(L, 3);
	else
		return luaL_error(L, "NFieldEntity has no field '%s'", k);
	return 0;
}

// nworld_types registers both entity metatables (idempotent).
static void nworld_types(lua_State *L)
{
	if (luaL_newmetatable(L, "NEntity")) {
		lua_pushcfunction(L, nent_gc);
		lua_setfield(L, -2, "__gc");
		lua_newtable(L);
		lua_pushcfunction(L, nent_position);
		lua_setfield(L, -2, "Position");
		lua_pushcfunction(L, nent_move);
		lua_setfield(L, -2, "Move");
		lua_pushcfunction(L, nent_neighbour);
		lua_setfield(L, -2, "Neighbour");
		lua_pushcfunction(L, nent_damage);
		lua_setfield(L, -2, "Damage");
		lua_setfield(L, -2, "__index");
	}
	lua_pop(L, 1);
	if (luaL_newmetatable(L, "NFieldEntity")) {
		lua_pushcfunction(L, nent_gc);
		lua_setfield(L, -2, "__gc");
		lua_pushcfunction(L, nfent_hit);
		lua_pushcclosure(L, nfent_index, 1);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, nfent_newindex);
		lua_setfield(L, -2, "__newindex");
	}
	lua_pop(L, 1);
}

// nworld_new makes a world whose events go to the global Lua functions
// frame, on_spawn and on_despawn (the script is loaded first); NULL if one
// is missing or memory is short. Stack: [-0, +0].
static NWorld *nworld_new(lua_State *L, int fields)
{
	NWorld *w;
	const char *names[3] = {"frame", "on_spawn", "on_despawn"};
	int refs[3], i;
	for (i = 0; i < 3; i++) {
		lua_getglobal(L, names[i]);
		if (!lua_isfunction(L, -1)) {
			lua_pop(L, 1);
			while (i-- > 0)
				luaL_unref(L, LUA_REGISTRYINDEX, refs[i]);
			return NULL;
		}
		refs[i] = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	w = (NWorld *)calloc(1, sizeof *w);
	if (w == NULL) {
		for (i = 0; i < 3; i++)
			luaL_unref(L, LUA_REGISTRYINDEX, refs[i]);
		return NULL;
	}
	nworld_types(L);
	w->mt = fields ? "NFieldEntity" : "NEntity";
	w->frame_ref = refs[0];
	w->spawn_ref = refs[1];
	w->despawn_ref = refs[2];
	return w;
}

// nworld_call calls the handler at ref with the entity at eref as its
// argument. On error the message stays on the stack: [-0, +(0|1)].
static int nworld_call(lua_State *L, int ref, int eref)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	lua_rawgeti(L, LUA_REGISTRYINDEX, eref);
	return lua_pcall(L, 1, 0, 0);
}

// nworld_spawn adds a new entity (same initial values as the Go world) and
// calls on_spawn(e). 0, LUA_ERRMEM when the array cannot grow, or the
// handler's status with its message on the stack: [-0, +(0|1)].
static int nworld_spawn(lua_State *L, NWorld *w)
{
	NEntity *e;
	if (w->n == w->cap) {
		int cap = w->cap ? 2 * w->cap : 1024;
		NEntity **ents = (NEntity **)realloc(w->ents, sizeof *ents * (size_t)cap);
		if (ents == NULL) {
			lua_pushliteral(L, "native: out of memory");
			return LUA_ERRMEM;
		}
		w->ents = ents;
		w->cap = cap;
	}
	e = (NEntity *)lua_newuserdata(L, sizeof *e);
	memset(e, 0, sizeof *e);
	e->id = ++w->next_id;
	e->hp = 1LL << 30;
	e->x = (double)(e->id % 200);
	e->vx = (double)(10 + e->id % 10);
	e->w = w;
	e->index = w->n;
	luaL_setmetatable(L, w->mt);
	e->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	w->ents[w->n++] = e;
	return nworld_call(L, w->spawn_ref, e->ref);
}

// nworld_despawn removes the entity at i (swap with the last), calls
// on_despawn(e) and drops the world's ref, as the Go world does.
// [-0, +(0|1)].
static int nworld_despawn(lua_State *L, NWorld *w, int i)
{
	NEntity *e = w->ents[i], *last = w->ents[w->n - 1];
	int st;
	w->ents[i] = last;
	last->index = i;
	w->n--;
	st = nworld_call(L, w->despawn_ref, e->ref);
	luaL_unref(L, LUA_REGISTRYINDEX, e->ref);
	return st;
}

// nworld_frame calls frame(dt). [-0, +(0|1)].
static int nworld_frame(lua_State *L, NWorld *w, double dt)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, w->frame_ref);
	lua_pushnumber(L, dt);
	return lua_pcall(L, 1, 0, 0);
}

// nworld_sums adds up x and hp over the world, for the cross-check of the
// three implementations.
static void nworld_sums(NWorld *w, double *x, double *hp)
{
	int i;
	*x = *hp = 0;
	for (i = 0; i < w->n; i++) {
		*x += w->ents[i]->x;
		*hp += (double)w->ents[i]->hp;
	}
}

// nworld_free releases the world's refs (entities and handlers) and its
// array; the userdata are then Lua garbage. [-0, +0].
static void nworld_free(lua_State *L, NWorld *w)
{
	int i;
	for (i = 0; i < w->n; i++)
		luaL_unref(L, LUA_REGISTRYINDEX, w->ents[i]->ref);
	luaL_unref(L, LUA_REGISTRYINDEX, w->frame_ref);
	luaL_unref(L, LUA_REGISTRYINDEX, w->spawn_ref);
	luaL_unref(L, LUA_REGISTRYINDEX, w->despawn_ref);
	free(w->ents);
	free(w);
}

// nworld_error returns the message of a failed call (top of the stack).
static const char *nworld_error(lua_State *L)
{
	const char *msg = lua_tostring(L, -1);
	return msg != NULL ? msg : "(error object is not a string)";
}

// native_pop pops n values (lua_pop is a macro).
static void native_pop(lua_State *L, int n) { lua_pop(L, n); }
*/
import "C"

import (
	"errors"
	"fmt"
)

// World is the native frame workload: entities as C structs in userdata,
// with lua_CFunction methods (NEntity) or C __index/__newindex fields
// (NFieldEntity), held in a C array.
type World struct {
	s *State
	w *C.NWorld
}

// NewWorld makes an empty world whose events go to the Lua functions
// frame, on_spawn and on_despawn (load the script first). With fields,
// entities are NFieldEntity: fields X, VX, HP and method Hit(n); without,
// NEntity: methods Position, Move(dx, dy), Neighbour and Damage(n).
func (s *State) NewWorld(fields bool) (*World, error) {
	f := C.int(0)
	if fields {
		f = 1
	}
	w := C.nworld_new(s.L, f)
	if w == nil {
		return nil, errors.New("native: new world: frame, on_spawn or on_despawn missing, or out of memory")
	}
	return &World{s, w}, nil
}

// status turns a Lua call status into an error with the Lua message.
func (w *World) status(op string, st C.int) error {
	if st == 0 {
		return nil
	}
	msg := C.GoString(C.nworld_error(w.s.L))
	C.native_pop(w.s.L, 1)
	return fmt.Errorf("native: %s: %s", op, msg)
}

// Frame calls frame(dt): one cgo call.
func (w *World) Frame(dt float64) error {
	return w.status("frame", C.nworld_frame(w.s.L, w.w, C.double(dt)))
}

// Spawn adds an entity and calls on_spawn(e): one cgo call.
func (w *World) Spawn() error { return w.status("spawn", C.nworld_spawn(w.s.L, w.w)) }

// Despawn removes the entity at index i (0 ≤ i < Len) and calls
// on_despawn(e): one cgo call.
func (w *World) Despawn(i int) error {
	if i < 0 || i >= w.Len() {
		return fmt.Errorf("native: despawn: index %d out of range [0, %d)", i, w.Len())
	}
	return w.status("despawn", C.nworld_despawn(w.s.L, w.w, C.int(i)))
}

// Len is the number of entities in the world.
func (w *World) Len() int { return int(w.w.n) }

// Hits counts the Damage and Hit calls made so far.
func (w *World) Hits() int { return int(w.w.hits) }

// Sums returns the sum of X and of HP over the entities.
func (w *World) Sums() (x, hp float64) {
	var cx, chp C.double
	C.nworld_sums(w.w, &cx, &chp)
	return float64(cx), float64(chp)
}

// Free releases the world; its entities become Lua garbage.
func (w *World) Free() { C.nworld_free(w.s.L, w.w) }
