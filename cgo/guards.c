/* guards.c: library functions whose stock loop no hook, allocation or
 * memory limit could stop. On Lua 5.4: string.rep of an empty string and
 * separator (n - 1 empty copies: string.rep('', 1e15) runs for days),
 * table.move between plain tables (table.move({}, 1, 1e15, 1) as long),
 * table.insert and table.remove on a table whose __len says 1e15, and
 * table.concat through a C __index (no instruction; it ran to the memory
 * limit). zlua's versions give the same results and errors; rep returns
 * the empty string at once and hands every other case to the stock
 * function; move, insert, remove and concat check the limit's flag every
 * ZLUA_MOVE_TICK elements. LuaJIT returns at once from the first, writes
 * the second in Lua (which the hook interrupts) and reads the raw length
 * in the others: none is replaced there (LuaJIT's print is wrapped to
 * flush its line instead, as 5.4's does). table.sort is the stock one on
 * both: a comparator that is a C function runs no instruction, but the
 * hurried hook fires on its calls (hook.c). */
#include "zlua.h"

#define ZLUA_MOVE_TICK 4096

#ifndef ZLUA_LUAJIT
/* [lua] Runs the stock library function f (env->stock_*) in the running
 * guard's own frame, as if the script had called it: the same arguments,
 * the same call depth, and an error it raises names the function the
 * script called (luaL_argerror finds the guard under the stock name).
 * Returns what f returns; the stack effect is f's. */
static int stock(lua_State *L, lua_CFunction f)
{
	if (f == NULL) /* never: a guard exists only beside its stock function */
		return luaL_error(L, "zlua: library function missing");
	return f(L);
}

/* [lua] string.rep(s, n [, sep]). [-0, +1] */
static int guard_rep(lua_State *L)
{
	size_t len, seplen;
	lua_Integer n;
	luaL_checklstring(L, 1, &len);
	n = luaL_checkinteger(L, 2);
	luaL_optlstring(L, 3, "", &seplen);
	if (n > 0 && len == 0 && seplen == 0) {
		lua_pushliteral(L, "");
		return 1;
	}
	return stock(L, zlua_envof(L)->stock_rep);
}

#define NEED_READ 1
#define NEED_WRITE 2
#define NEED_LEN 4

/* [lua] Whether the metatable on top has a field named event (raw).
 * [-0, +0] */
static int has_event(lua_State *L, const char *event)
{
	int has;
	lua_pushstring(L, event);
	has = lua_rawget(L, -2) != LUA_TNIL;
	lua_pop(L, 1);
	return has;
}

/* [lua] The check the table library makes of its table arguments: a
 * table, or a value whose metatable has the metamethods the function will
 * use (need: NEED_*), else "table expected". [-0, +0] */
static void check_tablelike(lua_State *L, int arg, int need)
{
	int ok;
	if (lua_type(L, arg) == LUA_TTABLE)
		return;
	ok = 0;
	if (lua_getmetatable(L, arg)) {
		ok = (!(need & NEED_READ) || has_event(L, "__index")) &&
		     (!(need & NEED_WRITE) || has_event(L, "__newindex")) &&
		     (!(need & NEED_LEN) || has_event(L, "__len"));
		lua_pop(L, 1);
	}
	if (!ok)
		luaL_checktype(L, arg, LUA_TTABLE);
}

/* [lua] The limit's check, every ZLUA_MOVE_TICK steps i of a loop:
 * raises the interruption once a context is done. [-0, +0] */
static void tick(lua_State *L, zlua_env *env, lua_Integer i)
{
	if ((i & (ZLUA_MOVE_TICK - 1)) == ZLUA_MOVE_TICK - 1 && zlua_interrupted(env))
		zlua_raise_interrupt(L, env, 1);
}

/* [lua] table.move(a1, f, e, t [, a2]): same checks, messages, order of
 * reads and writes, and result as the stock function; the limit's flag
 * is checked every ZLUA_MOVE_TICK elements. [-0, +1] */
static int guard_move(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	lua_Integer f = luaL_checkinteger(L, 2);
	lua_Integer e = luaL_checkinteger(L, 3);
	lua_Integer t = luaL_checkinteger(L, 4);
	int dst = lua_isnoneornil(L, 5) ? 1 : 5;
	check_tablelike(L, 1, NEED_READ);
	check_tablelike(L, dst, NEED_WRITE);
	if (e >= f) {
		lua_Integer n, i;
		int forward;
		luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
		n = e - f + 1;
		luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
		/* Backwards only when the destination overlaps the source from
		 * above in the same table. */
		forward = t > e || t <= f || (dst != 1 && !lua_compare(L, 1, dst, LUA_OPEQ));
		for (i = 0; i < n; i++) {
			lua_Integer k = forward ? i : n - 1 - i;
			tick(L, env, i);
			lua_geti(L, 1, f + k); /* dst[t + k] = a1[f + k], metamethods run */
			lua_seti(L, dst, t + k);
		}
	}
	lua_pushvalue(L, dst);
	return 1;
}

/* [lua] The length table.insert and table.remove work on: #t (with
 * __len), which must be an integer. [-0, +0] */
static lua_Integer table_len(lua_State *L)
{
	check_tablelike(L, 1, NEED_READ | NEED_WRITE | NEED_LEN);
	return luaL_len(L, 1);
}

/* [lua] table.insert(t, [pos,] v): the stock checks and messages; the
 * elements above pos move up one by one from the top (a __len can make
 * that loop as long as it likes: the limit's flag is checked). [-1, +0] */
static int guard_insert(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	lua_Integer end = (lua_Integer)((lua_Unsigned)table_len(L) + 1u); /* first empty slot */
	lua_Integer pos, i, steps;
	switch (lua_gettop(L)) {
	case 2:
		pos = end;
		break;
	case 3:
		pos = luaL_checkinteger(L, 2);
		luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)end, 2, "position out of bounds");
		for (i = end, steps = 0; i > pos; i--, steps++) {
			tick(L, env, steps);
			lua_geti(L, 1, i - 1);
			lua_seti(L, 1, i);
		}
		break;
	default:
		return luaL_error(L, "wrong number of arguments to 'insert'");
	}
	lua_seti(L, 1, pos); /* the value, on top */
	return 0;
}

/* [lua] table.remove(t [, pos]): the stock checks and messages; the
 * elements above pos move down one by one (checked as insert's).
 * [-0, +1] */
static int guard_remove(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	lua_Integer size = table_len(L);
	lua_Integer pos = luaL_optinteger(L, 2, size), steps;
	/* A position given must be 1 to size + 1; stock 5.4 calls it
	 * argument #1 in the message. */
	if (pos != size)
		luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 1, "position out of bounds");
	lua_geti(L, 1, pos); /* the result */
	for (steps = 0; pos < size; pos++, steps++) {
		tick(L, env, steps);
		lua_geti(L, 1, pos + 1);
		lua_seti(L, 1, pos);
	}
	lua_pushnil(L);
	lua_seti(L, 1, pos);
	return 1;
}

/* [lua] Appends t[i] (argument 1, metamethods run) to b: a string or a
 * number, else the stock error. [-0, +0] */
static void add_field(lua_State *L, luaL_Buffer *b, lua_Integer i)
{
	lua_geti(L, 1, i);
	if (!lua_isstring(L, -1))
		luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1),
			   (LUAI_UACINT)i);
	luaL_addvalue(b);
}

/* [lua] table.concat(t [, sep [, i [, j]]]): the stock checks, messages
 * and order (the length, __len included, before the other arguments).
 * The elements come through __index, which can be a C function that
 * runs no instruction, and the length from __len: the limit's flag is
 * checked every ZLUA_MOVE_TICK elements. [-0, +1] */
static int guard_concat(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	luaL_Buffer b;
	size_t lsep;
	const char *sep;
	lua_Integer i, last, steps;
	check_tablelike(L, 1, NEED_READ | NEED_LEN);
	last = luaL_len(L, 1);
	sep = luaL_optlstring(L, 2, "", &lsep);
	i = luaL_optinteger(L, 3, 1);
	last = luaL_optinteger(L, 4, last);
	luaL_buffinit(L, &b);
	for (steps = 0; i < last; i++, steps++) {
		tick(L, env, steps);
		add_field(L, &b, i);
		luaL_addlstring(&b, sep, lsep);
	}
	if (i == last)
		add_field(L, &b, i);
	luaL_pushresult(&b);
	return 1;
}


/* [lua] Replaces lib.name by fn, a C function without upvalues, when the
 * library and a stock C function without upvalues of its own are there
 * (the stock one is then kept in *keep, if given, for stock()). Neither
 * the guard nor the stock function is reachable through upvalues: the
 * debug library cannot take the stock function out or put another in.
 * [-0, +0] */
static void replace(lua_State *L, const char *lib, const char *name, lua_CFunction fn,
		    lua_CFunction *keep)
{
	lua_getglobal(L, lib); /* LuaJIT's returns nothing */
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		return;
	}
	lua_getfield(L, -1, name);
	if (!lua_iscfunction(L, -1)) {
		lua_pop(L, 2);
		return;
	}
	if (lua_getupvalue(L, -1, 1) != NULL) {
		lua_pop(L, 3);
		return;
	}
	if (keep != NULL)
		*keep = lua_tocfunction(L, -1);
	lua_pop(L, 1);
	lua_pushcfunction(L, fn);
	lua_setfield(L, -2, name);
	lua_pop(L, 1);
}

/* [lua] [-0, +0] */
void zlua_open_guards(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	replace(L, "string", "rep", guard_rep, &env->stock_rep);
	replace(L, "table", "move", guard_move, NULL);
	replace(L, "table", "insert", guard_insert, NULL);
	replace(L, "table", "remove", guard_remove, NULL);
	replace(L, "table", "concat", guard_concat, NULL);
}
#else
/* [lua] LuaJIT's print (upvalue 1), then fflush(stdout), as Lua 5.4's
 * print ends each line: stock LuaJIT leaves the line in stdio's buffer,
 * where, when standard output is a pipe (a container's log, systemd), it
 * comes after output Go wrote since and is lost when the process ends
 * through os.Exit or a crash (probe B2-F2). [-n, +0] */
static int flushing_print(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 0);
	fflush(stdout);
	return 0;
}

int zlua_jit_is_print_wrapper(lua_CFunction f)
{
	return f == flushing_print;
}

/* [lua] Nothing to guard on LuaJIT (see the top of this file); print is
 * made to flush its line. [-0, +0] */
void zlua_open_guards(lua_State *L)
{
	lua_getfield(L, LUA_GLOBALSINDEX, "print");
	if (lua_iscfunction(L, -1)) {
		lua_pushcclosure(L, flushing_print, 1);
		lua_setfield(L, LUA_GLOBALSINDEX, "print");
	} else {
		lua_pop(L, 1);
	}
}
#endif
