/* debughook.c: debug.sethook and debug.gethook as scripts know them, on top
 * of zlua's one C hook (hook.c), so that a script's hook and the time limit
 * of a limited call coexist. The script's hook (function, mask, count) is
 * kept in a record: one per thread on Lua 5.4, one for the state on LuaJIT,
 * whose hooks are global. The C hook calls the function for the script's
 * events; outside limited calls it is installed with exactly the script's
 * mask and count, so the behaviour is the stock library's. gethook always
 * reports the script's own values. */
#include "zlua.h"

#ifdef ZLUA_LUAJIT
#define TAIL_EVENT "tail return"
#define CALL_EVENT(ev) ((ev) == LUA_HOOKCALL)
#else
#define TAIL_EVENT "tail call"
#define CALL_EVENT(ev) ((ev) == LUA_HOOKCALL || (ev) == LUA_HOOKTAILCALL)
#endif

/* Records live in the table registry[env->hooks_ref]: on Lua 5.4 keyed by
 * thread (weak keys), the record a userdata whose user value is the hook
 * function; on LuaJIT the record is at [1] and the function at [2]. A
 * script with debug.getregistry can replace any of it, so every read
 * checks types: a record holds integers only. */

zlua_hookrec *zlua_hookrec_of(lua_State *L, zlua_env *env, int idx, int pushfn)
{
	zlua_hookrec *rec = NULL;
	if (!env->script_hooks) {
		if (pushfn)
			lua_pushnil(L);
		return NULL;
	}
	idx = idx != 0 ? lua_absindex_compat(L, idx) : 0;
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->hooks_ref); /* [H] */
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		if (pushfn)
			lua_pushnil(L);
		return NULL;
	}
#ifdef ZLUA_LUAJIT
	(void)idx;
	lua_rawgeti(L, -1, 1); /* [H, rec] */
#else
	if (idx != 0)
		lua_pushvalue(L, idx);
	else
		lua_pushthread(L);
	lua_rawget(L, -2); /* [H, rec] */
#endif
	if (lua_type(L, -1) == LUA_TUSERDATA && zlua_rawlen(L, -1) == sizeof *rec)
		rec = (zlua_hookrec *)lua_touserdata(L, -1);
	if (!pushfn) {
		lua_pop(L, 2);
		return rec;
	}
#ifdef ZLUA_LUAJIT
	lua_rawgeti(L, -2, 2);
#else
	if (rec != NULL)
		lua_getiuservalue(L, -1, 1);
	else
		lua_pushnil(L);
#endif
	lua_replace(L, -3);
	lua_pop(L, 1); /* [fn] */
	return rec;
}

#ifdef ZLUA_LUAJIT
/* What a script's hook sees of zlua's own Lua closures on LuaJIT. Stock
 * LuaJIT runs none of their code: the C stack wrappers (cstack.c,
 * "=zlua.cstack"), pairs and ipairs and the __index closures
 * ("=zlua.index"), xpcall ("=zlua.xpcall"), gmatch's iterator
 * ("=zlua.gmatch"), leaf methods. So the script's hook is not called for
 *  - any event of such a closure (call, line, return);
 *  - the call of a C function one of them calls (type, the C stack check,
 *    ...), but for the library functions a wrapper calls on the script's
 *    behalf (coroutine.wrap, load, loadstring: ZLUA_HOOKFN_*); the
 *    function a wrapper ends with a tail call (print, pairs, ...) has the
 *    script's frame as its caller, so its call is the script's, as in
 *    stock; likewise the stock print zlua's print (C) calls;
 *  - the line event LuaJIT reports again after a wrapper returns: its
 *    line hook fires when the previous instruction of the same C frame
 *    was in another function, and that is the wrapper's last one; stock
 *    ran the script's call last, so it reports the line only when it
 *    changes (see start_watch);
 *  - count events inside them (hook.c: they wait for the script's next
 *    instruction).
 * All of this runs only when a script has a hook. */

/* Whether source names one of zlua's own chunks. */
static int own_chunk(const char *source)
{
	return source != NULL && strncmp(source, "=zlua.", 6) == 0;
}

/* The stack slot a lua_Debug names: LuaJIT keeps it in the low 16 bits
 * of i_ci (lua_getstack adds the frame's size above them); its stack has
 * fewer than 65536 slots. */
#define FRAME_SLOT(ar) ((ar)->i_ci & 0xffff)

void zlua_jit_hook_fn(lua_State *L, zlua_env *env, int which)
{
	if (which < 0 || which >= ZLUA_HOOKFN_N || !lua_isfunction(L, -1))
		return;
	env->hook_fns[which] = lua_topointer(L, -1);
	lua_pushvalue(L, -1);
	(void)luaL_ref(L, LUA_REGISTRYINDEX); /* for the env's life */
}

/* [lua] Fills up with the caller of the function at level (info "Slf"),
 * skipping pcall and xpcall, which call their function from their
 * caller's C frame, and stores its function's address in *fn. Returns
 * its level, or -1 when there is none. [-0, +0] */
static int caller_of(lua_State *L, zlua_env *env, int level, lua_Debug *up, const void **fn)
{
	while (lua_getstack(L, ++level, up) && lua_getinfo(L, "Slf", up)) {
		*fn = lua_topointer(L, -1);
		lua_pop(L, 1);
		if (*fn == NULL || (*fn != env->hook_fns[ZLUA_HOOKFN_PCALL] &&
				    *fn != env->hook_fns[ZLUA_HOOKFN_XPCALL]))
			return level;
	}
	return -1;
}

/* [lua] Notes w as a frame whose next line event, on the line of its
 * call, is the one LuaJIT reports again (repeated_line). Frames of L at
 * its slot and above have returned: their notes go. [-0, +0] */
static void push_wrapret(zlua_env *env, const zlua_wrapret *n)
{
	zlua_wrapret *w;
	int i, j;
	for (i = j = 0; i < env->wrapret_n; i++) {
		w = &env->wrapret[i];
		if (w->L != n->L || w->slot < n->slot)
			env->wrapret[j++] = *w;
	}
	env->wrapret_n = j;
	if (j == ZLUA_WRAPRET_MAX) {
		memmove(&env->wrapret[0], &env->wrapret[1], (j - 1) * sizeof env->wrapret[0]);
		env->wrapret_n = j - 1;
	}
	env->wrapret[env->wrapret_n++] = *n;
}

/* [lua] A line event inside one of zlua's Lua closures (level 0), called
 * by a script's function (the nearest Lua frame, through pcall and
 * xpcall). When the closure returns, LuaJIT's line hook may report the
 * caller's line again: it fires when the last instruction run in the same
 * C frame was in another function, and that is the closure's, where stock
 * ran the caller's call instruction last and reports the next instruction
 * only on another line. Whether it does depends on what the library
 * function the closure calls does (coroutine.resume leaves the caller's
 * position; a C function leaves the closure's), so zlua watches: the hook
 * fires at every instruction (count 1) until the first one outside zlua's
 * closures, in zlua_jit_count_event. Not with the call hook on (LuaJIT's
 * call of a C function then leaves no instruction of the caller's last
 * either, so stock reports that line again too), nor with a script's
 * count above 1, which a watch would restart. [-0, +0] */
static void start_watch(lua_State *L, zlua_env *env, const zlua_hookrec *rec)
{
	lua_Debug up;
	const void *fn = NULL;
	if (rec == NULL || (lua_gethookmask(L) & LUA_MASKCALL) ||
	    ((rec->mask & LUA_MASKCOUNT) && rec->count > 1) ||
	    caller_of(L, env, 0, &up, &fn) < 0 || up.what[0] == 'C' || own_chunk(up.source))
		return; /* (a zlua closure's own caller is watched from its next line) */
	/* The caller's line event must be the last one: any Lua function
	 * entered since (one that tail-called the closure, a metamethod)
	 * reports its first line, and its instructions then come last in
	 * stock too. */
	if (env->lastline_L != L || env->lastline_slot != FRAME_SLOT(&up))
		return;
	env->watched.L = L;
	env->watched.fn = fn;
	env->watched.slot = FRAME_SLOT(&up);
	env->watched.line = up.currentline;
	if (env->watch != 1) {
		env->watch = 1;
		zlua_hook_apply(L, env, 0, 0);
	}
}

int zlua_jit_count_event(lua_State *L, zlua_env *env)
{
	lua_Debug ar, up;
	const zlua_wrapret *w = &env->watched;
	const void *fn, *f;
	int level, slot, nested = 0;
	if (env->watch == 2)
		env->watch = 0; /* the instruction after the return has passed */
	if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "S", &ar))
		return 0;
	if (own_chunk(ar.source))
		return 1;
	if (env->watch == 0 || !lua_getinfo(L, "f", &ar))
		return 0;
	fn = lua_topointer(L, -1);
	lua_pop(L, 1);
	/* The first instruction outside zlua's closures since the watch
	 * began. The caller's, right after the return: the line event of this
	 * same instruction, if any, is suppressed when on the line of the
	 * call (repeated_line). */
	env->watch = 0;
	slot = FRAME_SLOT(&ar);
	if (w->L != L || slot < w->slot)
		return 0; /* a coroutine resumed, or the caller is gone */
	if (slot == w->slot) {
		if (fn == w->fn)
			env->watch = 2;
		return 0;
	}
	/* Lua code the library function runs before it returns: in the
	 * caller's C frame (pcall, xpcall: the caller's line is then reported
	 * again in stock too) or in a C frame of its own (table.sort's
	 * comparator, a module require runs): then the closure's instruction
	 * stays the caller's last, and its next line event is noted. */
	for (level = 1; lua_getstack(L, level, &up) && lua_getinfo(L, "Sf", &up); level++) {
		f = lua_topointer(L, -1);
		lua_pop(L, 1);
		if (FRAME_SLOT(&up) <= w->slot) {
			if (FRAME_SLOT(&up) == w->slot && f == w->fn && nested)
				push_wrapret(env, w);
			break;
		}
		if (up.what[0] == 'C' && f != env->hook_fns[ZLUA_HOOKFN_PCALL] &&
		    f != env->hook_fns[ZLUA_HOOKFN_XPCALL])
			nested = 1;
	}
	return 0;
}

void zlua_jit_hook_unwound(lua_State *L, zlua_env *env)
{
	int i, j;
	if (env->watch != 0 && env->watched.L == L)
		env->watch = 0; /* (the hook's count is restored at its next event) */
	for (i = j = 0; i < env->wrapret_n; i++)
		if (env->wrapret[i].L != L)
			env->wrapret[j++] = env->wrapret[i];
	env->wrapret_n = j;
}

/* [lua] Whether the line event ar of a script's function is the one
 * LuaJIT reports again after a wrapper returned to it (start_watch)
 * on the line of its call. Its note is used up, and those of frames of L
 * above it, which have returned. [-0, +0] */
static int repeated_line(lua_State *L, zlua_env *env, lua_Debug *ar)
{
	int slot = FRAME_SLOT(ar), i, j, hit = 0;
	zlua_wrapret *w;
	for (i = j = 0; i < env->wrapret_n; i++) {
		w = &env->wrapret[i];
		if (w->L != L || w->slot < slot) {
			env->wrapret[j++] = *w;
			continue;
		}
		if (w->slot == slot && w->line == ar->currentline && lua_getinfo(L, "f", ar)) {
			hit = lua_topointer(L, -1) == w->fn;
			lua_pop(L, 1);
		}
	}
	env->wrapret_n = j;
	return hit;
}

/* [lua] Whether the script's hook must not see the event ar (call, line
 * or return; see above). [-0, +0] */
static int hidden_event(lua_State *L, zlua_env *env, lua_Debug *ar, const zlua_hookrec *rec)
{
	lua_Debug up;
	const void *fn = NULL;
	int i, level;
	if (!lua_getinfo(L, "S", ar))
		return 0;
	if (own_chunk(ar->source)) {
		if (ar->event == LUA_HOOKLINE)
			start_watch(L, env, rec);
		return 1;
	}
	if (ar->event == LUA_HOOKLINE) {
		int hit = 0;
		env->lastline_L = L;
		env->lastline_slot = FRAME_SLOT(ar);
		if (env->watch == 2) { /* the instruction right after the return */
			hit = env->watched.L == L && env->watched.slot == FRAME_SLOT(ar) &&
			      env->watched.line == ar->currentline;
			env->watch = 0;
		}
		if (env->wrapret_n > 0 && repeated_line(L, env, ar))
			hit = 1;
		return hit;
	}
	if (ar->event != LUA_HOOKCALL || ar->what == NULL || ar->what[0] != 'C' ||
	    (level = caller_of(L, env, 0, &up, &fn)) < 0)
		return 0;
	if (up.what[0] == 'C') { /* the stock print, called by zlua's? */
		if (!lua_getstack(L, level, &up) || !lua_getinfo(L, "f", &up))
			return 0;
		i = zlua_jit_is_print_wrapper(lua_tocfunction(L, -1));
		lua_pop(L, 1);
		return i;
	}
	if (!own_chunk(up.source))
		return 0;
	if (lua_getinfo(L, "f", ar)) { /* a library function called for the script */
		fn = lua_topointer(L, -1);
		lua_pop(L, 1);
		for (i = ZLUA_HOOKFN_WRAP; i < ZLUA_HOOKFN_N; i++)
			if (fn != NULL && fn == env->hook_fns[i])
				return 0;
	}
	return 1;
}
#endif

void zlua_script_hook(lua_State *L, zlua_env *env, lua_Debug *ar)
{
	static const char *const names[] = { "call", "return", "line", "count", TAIL_EVENT };
	zlua_hookrec *rec = zlua_hookrec_of(L, env, 0, 1);
	if (lua_type(L, -1) != LUA_TFUNCTION || /* none, or a coroutine's inherited one */
	    (ar->event == LUA_HOOKLINE && (rec == NULL || !(rec->mask & LUA_MASKLINE))) ||
	    (CALL_EVENT(ar->event) && (rec == NULL || !(rec->mask & LUA_MASKCALL)))
#ifdef ZLUA_LUAJIT
	    || (ar->event != LUA_HOOKCOUNT && hidden_event(L, env, ar, rec))
#endif
	) {
		lua_pop(L, 1); /* (line and call events zlua asked for, see hook.c) */
		return;
	}
	lua_pushstring(L, ar->event >= 0 && ar->event <= 4 ? names[ar->event] : "?");
	if (ar->currentline >= 0)
		lua_pushinteger(L, ar->currentline);
	else
		lua_pushnil(L);
	if (env->limit_depth == 0) {
		lua_call(L, 2, 0);
		return;
	}
	/* Inside a limited call an error leaving the hook is marked: message
	 * handlers run without hooks, and zlua's then skip the script's. */
	if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
		env->hook_raised = 1;
		lua_error(L);
	}
}

/* The LUA_MASK* bits of a sethook mask string and count. */
static int make_mask(const char *s, int count)
{
	int mask = 0;
	if (strchr(s, 'c') != NULL)
		mask |= LUA_MASKCALL;
	if (strchr(s, 'r') != NULL)
		mask |= LUA_MASKRET;
	if (strchr(s, 'l') != NULL)
		mask |= LUA_MASKLINE;
	if (count > 0)
		mask |= LUA_MASKCOUNT;
	return mask;
}

/* The mask string gethook reports for mask: "c", "r", "l" in that order. */
static const char *mask_string(int mask, char *buf)
{
	char *p = buf;
	if (mask & LUA_MASKCALL)
		*p++ = 'c';
	if (mask & LUA_MASKRET)
		*p++ = 'r';
	if (mask & LUA_MASKLINE)
		*p++ = 'l';
	*p = 0;
	return buf;
}

/* [lua] Pushes the record table, making a new one if a script replaced
 * it. [-0, +1] */
static void push_records(lua_State *L, zlua_env *env)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->hooks_ref);
	if (lua_type(L, -1) == LUA_TTABLE)
		return;
	lua_pop(L, 1);
	lua_newtable(L);
#ifndef ZLUA_LUAJIT
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "k");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	/* Where the stock library keeps its per-thread hooks (a table with
	 * weak keys): the official test suite checks it (db.lua). */
	lua_pushvalue(L, -1);
	lua_setfield(L, LUA_REGISTRYINDEX, "_HOOKKEY");
#endif
	lua_pushvalue(L, -1);
	lua_rawseti(L, LUA_REGISTRYINDEX, env->hooks_ref);
}

/* [lua] Pushes a new record userdata (Lua 5.4: with one user value).
 * [-0, +1] */
static zlua_hookrec *new_record(lua_State *L)
{
#ifdef ZLUA_LUAJIT
	zlua_hookrec *rec = (zlua_hookrec *)lua_newuserdata(L, sizeof *rec);
#else
	zlua_hookrec *rec = (zlua_hookrec *)lua_newuserdatauv(L, sizeof *rec, 1);
#endif
	memset(rec, 0, sizeof *rec);
	return rec;
}

/* [lua] debug.sethook([thread,] hook, mask [, count]) with the standard
 * library's arguments and errors; records the script's hook and applies
 * it merged with the time limit. Lua 5.4 sets the hook of the thread
 * given (default: the running one); LuaJIT's hook is the state's. */
static int db_sethook(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	int arg = lua_type(L, 1) == LUA_TTHREAD ? 1 : 0;
	int mask = 0, count = 0;
	zlua_hookrec *rec;
	if (!lua_isnoneornil(L, arg + 1)) {
		const char *smask = luaL_checkstring(L, arg + 2);
		luaL_checktype(L, arg + 1, LUA_TFUNCTION);
		count = (int)luaL_optinteger(L, arg + 3, 0);
		mask = make_mask(smask, count);
	}
	lua_settop(L, arg + 1); /* [thread,] hook or nil */
	push_records(L, env);   /* [thread,] hook, H */
#ifdef ZLUA_LUAJIT
	lua_rawgeti(L, -1, 1);
	rec = lua_type(L, -1) == LUA_TUSERDATA && zlua_rawlen(L, -1) == sizeof *rec ?
		(zlua_hookrec *)lua_touserdata(L, -1) : NULL;
	if (rec == NULL) {
		lua_pop(L, 1);
		rec = new_record(L);
		lua_pushvalue(L, -1);
		lua_rawseti(L, -3, 1);
	}
	lua_pushvalue(L, arg + 1);
	lua_rawseti(L, -3, 2); /* the function stays even when the mask is empty */
#else
	if (arg)
		lua_pushvalue(L, 1);
	else
		lua_pushthread(L); /* [thread,] hook, H, key */
	if (mask == 0) { /* off: gethook reports no hook */
		lua_pushnil(L);
		lua_rawset(L, -3);
		rec = NULL;
	} else {
		lua_pushvalue(L, -1);
		lua_rawget(L, -3); /* the thread's record, updated in place */
		rec = lua_type(L, -1) == LUA_TUSERDATA && zlua_rawlen(L, -1) == sizeof *rec ?
			(zlua_hookrec *)lua_touserdata(L, -1) : NULL;
		if (rec == NULL) {
			lua_pop(L, 1);
			rec = new_record(L);
		}
		lua_pushvalue(L, arg + 1);
		lua_setiuservalue(L, -2, 1);
		lua_rawset(L, -3); /* H[key] = record */
	}
#endif
	if (rec != NULL) {
		rec->mask = mask;
		rec->count = count;
		rec->left = count;
	}
	env->script_hooks = 1;
#ifdef ZLUA_LUAJIT
	env->hook_inwrap = 0;
	env->watch = 0;
	env->wrapret_n = 0;
#endif
	zlua_hook_apply(L, env, arg, 1); /* the count starts now, as in stock */
	/* A script calling sethook in a loop would restart the count (and undo
	 * a hurry) before it ever ran out: once a limited call's context is
	 * done, the hook fires at the next instruction all the same (probe
	 * E1-F7: `while true do debug.sethook() end` ran on forever). */
	if (zlua_interrupted(env))
		zlua_hook_hurry_running(env);
	return 0;
}

/* [lua] debug.gethook([thread]) with the standard library's results, from
 * the script's record: Lua 5.4 returns fail when the thread has no hook,
 * else function (nil for a hook a coroutine inherited), mask, count;
 * LuaJIT always returns the state's function, mask and count. */
static int db_gethook(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	char buf[4];
	int arg = lua_type(L, 1) == LUA_TTHREAD ? 1 : 0;
	zlua_hookrec *rec;
#ifdef ZLUA_LUAJIT
	arg = 0; /* LuaJIT reports the state's hook whatever the argument */
#endif
	rec = zlua_hookrec_of(L, env, arg, 1); /* [fn] */
#ifndef ZLUA_LUAJIT
	if (rec == NULL || rec->mask == 0) {
		lua_pushnil(L);
		return 1;
	}
#endif
	lua_pushstring(L, mask_string(rec != NULL ? rec->mask : 0, buf));
	lua_pushinteger(L, rec != NULL ? rec->count : 0);
	return 3;
}

void zlua_hook_inherit(lua_State *L, zlua_env *env, int idx)
{
#ifdef ZLUA_LUAJIT
	(void)L;
	(void)env;
	(void)idx;
#else
	/* A new thread copies its creator's hook, mask and count; the stock
	 * library then finds no function for it, so it records nothing and
	 * gethook reports nil with the creator's mask and count. */
	zlua_hookrec *from = zlua_hookrec_of(L, env, 0, 0), *rec;
	int mask, count;
	if (from == NULL || from->mask == 0)
		return;
	mask = from->mask;
	count = from->count;
	idx = lua_absindex_compat(L, idx);
	push_records(L, env);
	lua_pushvalue(L, idx);
	rec = new_record(L);
	rec->mask = mask;
	rec->count = count;
	rec->left = count;
	lua_rawset(L, -3);
	lua_pop(L, 1);
#endif
}

void zlua_open_debughook(lua_State *L, zlua_env *env)
{
	lua_getglobal(L, "debug");
	if (lua_type(L, -1) != LUA_TTABLE) { /* LibsSafe */
		lua_pop(L, 1);
		return;
	}
#ifdef ZLUA_LUAJIT
	lua_getglobal(L, "pcall");
	zlua_jit_hook_fn(L, env, ZLUA_HOOKFN_PCALL);
	lua_pop(L, 1);
#endif
	env->hooks_ref = LUA_NOREF;
	lua_pushboolean(L, 0);
	env->hooks_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* a slot push_records fills */
	push_records(L, env);
#ifdef ZLUA_LUAJIT
	new_record(L);
	lua_rawseti(L, -2, 1);
#endif
	lua_pop(L, 1);
	lua_pushcfunction(L, db_sethook);
	lua_setfield(L, -2, "sethook");
	lua_pushcfunction(L, db_gethook);
	lua_setfield(L, -2, "gethook");
	lua_pop(L, 1);
}
