/* guards.c: Lua 5.4 library functions whose stock loop is bounded by an
 * integer argument alone, not by memory or Lua instructions, so that no
 * hook, allocation or memory limit could stop them: string.rep of an
 * empty string and separator (n - 1 empty copies: string.rep('', 1e15)
 * runs for days), table.move between plain tables
 * (table.move({}, 1, 1e15, 1) as long), and table.insert and
 * table.remove on a table whose __len says 1e15. zlua's versions give the
 * same results and errors; rep returns the empty string at once and hands
 * every other case to the stock function; move, insert and remove check
 * the limit's flag every ZLUA_MOVE_TICK elements. LuaJIT returns at once
 * from the first, writes the second in Lua (which the hook interrupts)
 * and reads the raw length in the others: nothing is replaced there. */
#include "zlua.h"

#ifndef ZLUA_LUAJIT

#define ZLUA_MOVE_TICK 4096

/* [lua] string.rep(s, n [, sep]). Upvalue 1: the stock function.
 * [-0, +1] */
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
	/* The arguments are valid: what the stock function can still raise
	 * ("resulting string too large", memory) names no function. */
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
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

/* [lua] Replaces a library function by fn with the stock one as upvalue
 * (when the library and the function are there). [-0, +0] */
static void replace(lua_State *L, const char *lib, const char *name, lua_CFunction fn)
{
	if (lua_getglobal(L, lib) != LUA_TTABLE) {
		lua_pop(L, 1);
		return;
	}
	if (lua_getfield(L, -1, name) != LUA_TFUNCTION) {
		lua_pop(L, 2);
		return;
	}
	lua_pushcclosure(L, fn, 1);
	lua_setfield(L, -2, name);
	lua_pop(L, 1);
}

/* [lua] [-0, +0] */
void zlua_open_guards(lua_State *L)
{
	replace(L, "string", "rep", guard_rep);
	replace(L, "table", "move", guard_move);
	replace(L, "table", "insert", guard_insert);
	replace(L, "table", "remove", guard_remove);
}

#else

void zlua_open_guards(lua_State *L)
{
	(void)L;
}

#endif
