/* interrupt.c: the interruption error of limited calls, shared by the count
 * hook (hook.c) and the C loops that run without Lua instructions, such as
 * the pattern matcher (pattern.c), so both raise the same message. */
#include <stdio.h>
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

/* [lua] Writes into env->int_tb what zlua's message handler shows of an
 * interrupted call's stack (protect.c, traceback_top), from level (0: the
 * running function, the level 1 of a message handler the raise runs): its
 * first ZLUA_TB_INTERRUPTED levels, then "..." when there are more. It
 * allocates nothing (the hook raising the interruption may run at the
 * memory limit); a traceback longer than the buffer is cut short.
 * [-0, +0] */
static void keep_traceback(lua_State *L, zlua_env *env, int level)
{
	char *b = env->int_tb;
	size_t cap = sizeof env->int_tb, n;
	int k, first = level;
	lua_Debug ar;
	n = (size_t)snprintf(b, cap, "stack traceback:");
	for (; n < cap && lua_getstack(L, level, &ar); level++) {
		if (level - first >= ZLUA_TB_INTERRUPTED) {
			k = snprintf(b + n, cap - n, "\n\t...\t(the rest skipped: the call was interrupted)");
			n += k > 0 ? (size_t)k : 0;
			break;
		}
		lua_getinfo(L, "Sln", &ar);
		k = snprintf(b + n, cap - n, "\n\t%s", ar.short_src);
		n += k > 0 ? (size_t)k : 0;
		if (n < cap && ar.currentline > 0) {
			k = snprintf(b + n, cap - n, ":%d", ar.currentline);
			n += k > 0 ? (size_t)k : 0;
		}
		if (n >= cap)
			break;
		if (ar.name != NULL)
			k = snprintf(b + n, cap - n, ": in function '%s'", ar.name);
		else if (*ar.what == 'm')
			k = snprintf(b + n, cap - n, ": in main chunk");
		else if (*ar.what == 'C')
			k = snprintf(b + n, cap - n, ": in ?");
		else
			k = snprintf(b + n, cap - n, ": in function <%s:%d>", ar.short_src, ar.linedefined);
		n += k > 0 ? (size_t)k : 0;
	}
	env->int_tb_len = n < cap ? n : cap - 1; /* snprintf wrote the NUL within cap */
}

int zlua_push_interrupt_tb(lua_State *L, zlua_env *env, int idx)
{
	size_t n;
	const char *s;
	if (env->int_first_len == 0 || env->int_tb_len == 0 || lua_type(L, idx) != LUA_TSTRING)
		return 0;
	s = lua_tolstring(L, idx, &n);
	if (n != env->int_first_len || memcmp(s, env->int_first, n) != 0)
		return 0;
	lua_pushlstring(L, env->int_tb, env->int_tb_len);
	return 1;
}

void zlua_push_interrupt(lua_State *L, zlua_env *env, int level)
{
	const char *text = zlua_interrupt_text(env);
	size_t w = strlen(text), n;
	const char *msg;
	/* The same interruption raised again (the hook's sticky raise after a
	 * script's pcall caught the first): its first message, whose position
	 * is where the script ran when it fired (a module's loop under a
	 * pcall(require, ...)), not where the script went on after catching
	 * it. Another context's text (nested calls) is positioned afresh. */
	if (env->int_first_len >= w &&
	    memcmp(env->int_first + env->int_first_len - w, text, w) == 0) {
		lua_pushlstring(L, env->int_first, env->int_first_len);
		return;
	}
	zlua_where_script(L, level);
	lua_pushstring(L, text);
	lua_concat(L, 2);
	msg = lua_tolstring(L, -1, &n);
	if (env->int_first_len == 0 && env->limit_depth > 0 && n <= sizeof env->int_first) {
		memcpy(env->int_first, msg, n);
		env->int_first_len = n;
		env->int_first_depth = env->limit_depth;
		keep_traceback(L, env, 0); /* from the running function, as the handler's */
	}
}

int zlua_raise_interrupt(lua_State *L, zlua_env *env, int level)
{
	zlua_push_interrupt(L, env, level);
	return lua_error(L);
}

void zlua_interrupt_forget(zlua_env *env)
{
	if (env->int_first_len == 0 || env->int_first_depth <= env->limit_depth)
		return; /* none, or an outer call's */
	/* The call that ended was interrupted: an outer call whose context
	 * is done too goes on from where the script ran then; else the
	 * message is dropped (the outer call's context is not done: its
	 * interruption, if it comes, is positioned afresh). */
	if (zlua_interrupted(env))
		env->int_first_depth = env->limit_depth;
	else
		env->int_first_len = 0;
}

/* The state of zlua_load_chunk's reader: what is left of the chunk. */
typedef struct piece_reader {
	zlua_env *env;
	const char *p;
	size_t left;
} piece_reader;

/* [lua] lua_Reader of zlua_load_chunk: the next ZLUA_LOAD_PIECE bytes,
 * unless the limited call's context is done: then the interruption is
 * raised, out of lua_load, which returns it as its error. [-0, +0],
 * or [-0, +1] and raises */
static const char *read_piece(lua_State *L, void *ud, size_t *size)
{
	piece_reader *r = (piece_reader *)ud;
	const char *p = r->p;
	size_t n = r->left < ZLUA_LOAD_PIECE ? r->left : ZLUA_LOAD_PIECE;
	if (zlua_interrupted(r->env)) {
		zlua_hook_hurry(L); /* the caller's next instruction raises it too */
		lua_pushstring(L, zlua_interrupt_text(r->env));
		lua_error(L);
	}
	r->p += n;
	r->left -= n;
	*size = n;
	return n > 0 ? p : NULL;
}

int zlua_load_chunk(lua_State *L, zlua_env *env, const char *chunk, size_t len, const char *name,
		    const char *mode)
{
	piece_reader r;
	int st;
	if (mode[0] == ZLUA_MODE_OWN[0]) {
		st = zlua_load_own(L, chunk, len, name);
	} else if (env->limit_depth == 0 || len <= ZLUA_LOAD_PIECE) {
		st = luaL_loadbufferx(L, chunk, len, name, mode);
	} else {
		r.env = env;
		r.p = chunk;
		r.left = len;
#ifdef ZLUA_LUAJIT
		st = lua_loadx(L, read_piece, &r, name, mode);
#else
		st = lua_load(L, read_piece, &r, name, mode);
#endif
	}
	if (st != LUA_OK)
		env->load_failures++;
	return st;
}
