/* interrupt.c: the interruption error of limited calls, shared by the count
 * hook (hook.c) and the C loops that run without Lua instructions, such as
 * the pattern matcher (pattern.c), so both raise the same message. */
#include <string.h>

#include "zlua.h"

const char *zlua_interrupt_text(zlua_env *env)
{
	int reason = __atomic_load_n(&env->interrupt_reason, __ATOMIC_RELAXED);
	return reason == ZLUA_INT_DEADLINE ? "interrupted: context deadline exceeded" :
					     "interrupted: context canceled";
}

int zlua_interrupted_now(zlua_env *env)
{
	return zlua_interrupted(env);
}

void zlua_where_script(lua_State *L, int level)
{
	lua_Debug ar;
	while (lua_getstack(L, level, &ar) && lua_getinfo(L, "S", &ar) &&
	       strncmp(ar.source, "=zlua.", 6) == 0)
		level++;
	luaL_where(L, level);
}

int zlua_raise_interrupt(lua_State *L, zlua_env *env, int level)
{
	zlua_where_script(L, level);
	lua_pushstring(L, zlua_interrupt_text(env));
	lua_concat(L, 2);
	return lua_error(L);
}
