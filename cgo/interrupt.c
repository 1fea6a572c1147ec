/* interrupt.c: the interruption error of limited calls, shared by the count
 * hook (hook.c) and the C loops that run without Lua instructions, such as
 * the pattern matcher (pattern.c), so both raise the same message. */
#include "zlua.h"

int zlua_raise_interrupt(lua_State *L, zlua_env *env, int level)
{
	int reason = __atomic_load_n(&env->interrupt_reason, __ATOMIC_RELAXED);
	luaL_where(L, level);
	lua_pushfstring(L, "interrupted: %s",
			reason == ZLUA_INT_DEADLINE ? "context deadline exceeded" : "context canceled");
	lua_concat(L, 2);
	return lua_error(L);
}
