/* Abandons lua_close's C frames from inside a finalizer (longjmp past them,
 * as runtime.Goexit leaves a cgo callback's C frames), then calls lua_close
 * again, as zlua's Close does (docs/ARCHITECTURE.md, "Goexit during
 * Close"). Not part of the build (testdata); run under valgrind:
 *   gcc -g -o a54 abandon_close.c $(pkg-config --cflags --libs lua5.4)
 *   gcc -g -DJIT -o ajit abandon_close.c $(pkg-config --cflags --libs luajit)
 *   valgrind --leak-check=full ./a54      (and ./ajit)
 * -DN=400 -DALL: 400 finalizers, every one abandoned. */
#include <setjmp.h>
#include <stdio.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#ifndef N
#define N 8
#endif
#ifdef ALL
#define ABANDON(i) 1
#else
#define ABANDON(i) ((i) % 2 == 0)
#endif
static jmp_buf out;
static int ran, exits;
static int fin(lua_State *L)
{
	int i = (int)lua_tointeger(L, lua_upvalueindex(1));
	ran++;
	if (ABANDON(i)) { exits++; longjmp(out, 1); }
	/* allocate inside the finalizer, run Lua */
	luaL_dostring(L, "local t = {} for i = 1, 100 do t[i] = tostring(i) end");
	return 0;
}
int main(void)
{
	lua_State *L = luaL_newstate();
	int i;
	luaL_openlibs(L);
	for (i = 1; i <= N; i++) {
#ifdef JIT
		lua_newuserdata(L, 8);
#else
		lua_newtable(L);
#endif
		lua_newtable(L);
		lua_pushinteger(L, i);
		lua_pushcclosure(L, fin, 1);
		lua_setfield(L, -2, "__gc");
		lua_setmetatable(L, -2);
		lua_rawseti(L, LUA_REGISTRYINDEX, 100000 + i); /* kept until close */
	}
	while (setjmp(out) != 0)
		; /* the frames below are dead: close again */
	lua_close(L);
	printf("ran %d finalizers, %d abandoned\n", ran, exits);
	return 0;
}
