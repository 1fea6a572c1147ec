/* driver.c: runs a Lua script with zlua's pattern functions or the
 * backend's stock ones, outside Go, so valgrind can count the instructions
 * of each (callgrind.sh). Usage: driver SCRIPT zlua|native [jitoff] */
#include <stdio.h>
#include "zlua.h"

#ifdef ZLUA_LUAJIT
static lua_Alloc base_alloc;
static void *base_ud;

/* LuaJIT's own allocator, wrapped so that the env is the allocator's ud,
 * as in zlua. */
static void *alloc(void *ud, void *p, size_t osize, size_t nsize)
{
	(void)ud;
	return base_alloc(base_ud, p, osize, nsize);
}
#else
static void *alloc(void *ud, void *p, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (nsize == 0) {
		free(p);
		return NULL;
	}
	return realloc(p, nsize);
}
#endif

static int run(lua_State *L, const char *chunk)
{
	if (luaL_loadstring(L, chunk) != 0 || lua_pcall(L, 0, 0, 0) != 0) {
		fprintf(stderr, "%s\n", lua_tostring(L, -1));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static zlua_env env; /* zeroed: no limited call, no interrupt */
	lua_State *L;
	if (argc < 3) {
		fprintf(stderr, "usage: driver SCRIPT zlua|native [jitoff]\n");
		return 2;
	}
#ifdef ZLUA_LUAJIT
	L = luaL_newstate();
	base_alloc = lua_getallocf(L, &base_ud);
	lua_setallocf(L, alloc, &env);
#else
	L = lua_newstate(alloc, &env);
#endif
	luaL_openlibs(L); /* (on LuaJIT this switches the JIT on) */
#ifdef ZLUA_LUAJIT
	if (argc > 3)
		luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
#endif
	zlua_open_patterns(L, &env);
	if (argv[2][0] == 'n' &&
	    run(L, "for k, f in pairs(debug.getregistry()['" ZLUA_STOCK_PATTERNS "']) do string[k] = f end"))
		return 1;
	if (run(L, "find, match, gsub, gmatch = string.find, string.match, string.gsub, string.gmatch"))
		return 1;
	if (luaL_dofile(L, argv[1]) != 0) {
		fprintf(stderr, "%s\n", lua_tostring(L, -1));
		return 1;
	}
	lua_close(L);
	return 0;
}
