/* indexcost: what a method lookup costs a userdata on stock Lua 5.4 with
 * each kind of __index: a methods table (what a Go type without fields
 * gets, and the native C and gopher-lua rows of the method-style frame),
 * a C function with the methods table as upvalue (the shape of zlua's
 * zlua_obj_findex for a type with fields), and a Lua closure looking the
 * method up before a C function serves fields. Thread CPU time per
 * `o:Position()` (lookup and call of an empty C method) and per `o.X`.
 *
 *   gcc -O2 -o /tmp/indexcost tools/indexcost/indexcost.c \
 *       $(pkg-config --cflags --libs lua5.4) && /tmp/indexcost
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <time.h>

enum { N = 20000000 };

/* The C __index: the method named by the key from the methods table at
 * upvalue 1, else a number for any key (a "field"). [-0, +1] */
static int c_index(lua_State *L)
{
	if (lua_type(L, lua_upvalueindex(1)) == LUA_TTABLE) {
		int t;
		lua_pushvalue(L, 2);
		t = lua_rawget(L, lua_upvalueindex(1));
		if (t != LUA_TNUMBER && t != LUA_TNIL)
			return 1;
	}
	lua_pushinteger(L, 42);
	return 1;
}

/* The Lua closure's field server: a number for any key. [-0, +1] */
static int c_field(lua_State *L)
{
	lua_pushinteger(L, 42);
	return 1;
}

/* The method looked up: empty, so the loop times the lookup and the
 * call. [-0, +0] */
static int method(lua_State *L)
{
	(void)L;
	return 0;
}

/* The calling thread's CPU time in seconds. */
static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Runs the chunk src (which loops N times) and returns the CPU ns per
 * iteration, or -1 if it failed (the error printed). [-0, +0] */
static double per_op(lua_State *L, const char *src)
{
	double t0;
	if (luaL_loadstring(L, src) != LUA_OK)
		return -1;
	t0 = cpu_now();
	if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
		fprintf(stderr, "%s\n", lua_tostring(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	return (cpu_now() - t0) / N * 1e9;
}

int main(void)
{
	static const char *const kinds[] = {"methods table", "C function", "Lua closure"};
	lua_State *L = luaL_newstate();
	int k;
	luaL_openlibs(L);
	for (k = 0; k < 3; k++) {
		lua_newuserdatauv(L, 8, 0);
		lua_newtable(L); /* the metatable */
		lua_newtable(L); /* the methods */
		lua_pushcfunction(L, method);
		lua_setfield(L, -2, "Position");
		if (k == 0) {
			lua_pushinteger(L, 42); /* the "field" a table hit */
			lua_setfield(L, -2, "X");
		} else if (k == 1) {
			lua_pushcclosure(L, c_index, 1);
		} else {
			luaL_loadstring(L, "local methods, field = ... return function(o, k) "
					   "local v = methods[k] if v ~= nil then return v end return field(o, k) end");
			lua_insert(L, -2);
			lua_pushcfunction(L, c_field);
			lua_call(L, 2, 1);
		}
		lua_setfield(L, -2, "__index");
		lua_setmetatable(L, -2);
		lua_setglobal(L, "o");
		printf("%-14s  o:Position() %5.1f ns   o.X %5.1f ns\n", kinds[k],
		       per_op(L, "local o = o for i = 1, 20000000 do o:Position() end"),
		       per_op(L, "local o, s = o, 0 for i = 1, 20000000 do s = s + o.X end"));
	}
	lua_close(L);
	return 0;
}
