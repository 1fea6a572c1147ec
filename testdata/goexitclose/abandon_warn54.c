/* Lua 5.4: a finalizer's error is a warning; the warning function abandons
 * lua_close's frames (longjmp, as runtime.Goexit in zlua's Warn sink), then
 * lua_close runs again. Not part of the build (testdata):
 *   gcc -g -o w54 abandon_warn54.c $(pkg-config --cflags --libs lua5.4)
 *   valgrind --leak-check=full ./w54 */
#include <setjmp.h>
#include <stdio.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
static jmp_buf out;
static int warned, ran, armed;
static void warnf(void *ud, const char *msg, int tocont)
{
	(void)ud; (void)msg;
	if (!tocont && armed) { warned++; longjmp(out, 1); }
}
static int fin(lua_State *L) { ran++; return luaL_error(L, "bad finalizer"); }
int main(void)
{
	lua_State *L = luaL_newstate();
	int i;
	luaL_openlibs(L);
	lua_setwarnf(L, warnf, NULL);
	lua_warning(L, "@on", 0);
	for (i = 1; i <= 5; i++) {
		lua_newtable(L);
		lua_newtable(L);
		lua_pushcfunction(L, fin);
		lua_setfield(L, -2, "__gc");
		lua_setmetatable(L, -2);
		lua_rawseti(L, LUA_REGISTRYINDEX, 1000 + i);
	}
	while (setjmp(out) != 0)
		;
	armed = 1;
	lua_close(L);
	printf("ran %d finalizers, %d warnings\n", ran, warned);
	return 0;
}
