/* warn.c: Lua 5.4 warnings (warn(), errors in __gc). lua_newstate installs
 * no warning function, so without this every warning is dropped. This one
 * keeps the standard semantics (off until "@on", "@off" and "@on" control
 * messages, pieces joined until the last) and delivers each whole message
 * to stderr as the lua5.4 interpreter prints it, or to Go (Options.Warn). */
#include "zlua.h"

#ifndef ZLUA_LUAJIT
/* Warnings longer than this are cut (a script cannot grow C memory without
 * bound through warn). */
#define ZLUA_WARN_MAX (64u << 10)

/* [lua] Appends a piece to the message being built; what does not fit is
 * dropped (never raises, never allocates Lua memory). */
static void warn_append(zlua_env *env, const char *s)
{
	size_t n = strlen(s), need;
	if (env->warn_len + n > ZLUA_WARN_MAX)
		n = ZLUA_WARN_MAX - env->warn_len;
	need = env->warn_len + n + 1;
	if (need > env->warn_cap) {
		size_t cap = env->warn_cap ? env->warn_cap : 256;
		char *p;
		while (cap < need)
			cap *= 2;
		p = (char *)realloc(env->warnbuf, cap);
		if (p == NULL)
			return;
		env->warnbuf = p;
		env->warn_cap = cap;
	}
	memcpy(env->warnbuf + env->warn_len, s, n);
	env->warn_len += n;
	env->warnbuf[env->warn_len] = 0;
}

/* [lua] The lua_WarnFunction of every Lua 5.4 state; ud is the env. A
 * control message ("@on", "@off") is a whole message starting with '@'
 * outside a continuation; the standard function checks for one even while
 * warnings are off, so this does too. */
static void warnf(void *ud, const char *msg, int tocont)
{
	zlua_env *env = (zlua_env *)ud;
	if (!env->warn_cont && !tocont && msg[0] == '@') {
		if (strcmp(msg, "@on") == 0)
			env->warn_on = 1;
		else if (strcmp(msg, "@off") == 0)
			env->warn_on = 0;
		return;
	}
	if (!env->warn_on)
		return;
	warn_append(env, msg);
	env->warn_cont = tocont;
	if (tocont)
		return;
	if (env->warn_go)
		zluaWarn(env->goid, env->warnbuf, env->warn_len);
	else
		fprintf(stderr, "Lua warning: %s\n", env->warnbuf);
	env->warn_len = 0;
}

void zlua_open_warnings(lua_State *L, zlua_env *env, int to_go)
{
	env->warn_go = to_go;
	env->warn_on = to_go; /* a host that asks for warnings gets them from the start */
	lua_setwarnf(L, warnf, env);
}
#else
void zlua_open_warnings(lua_State *L, zlua_env *env, int to_go)
{
	(void)L;
	(void)env;
	(void)to_go; /* LuaJIT has no warnings */
}
#endif
