/* gate.c: the one C function behind every Go function: its argument
 * reads, argument errors and results (the push-program interpreter it
 * shares with the protected operations is prog.c). */
#include "zlua.h"

/* Branch hints for the trampoline's common case (a proven sentinel,
 * numbers read through their hints): its path falls through. */
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* [go-safe] zlua_read_arg, inlined into the trampoline's argument loop.
 * [-0, +0] */
static inline void read_arg(zlua_env *env, lua_State *L, int idx, zlua_arg *a, unsigned hint)
{
	a->isint = 0;
	a->len = 0;
#ifndef ZLUA_LUAJIT
	/* An integer costs two calls (subtype, value) instead of three: the
	 * subtype test doubles as the type test. A parameter hinted
	 * ZLUA_HINT_REF takes no number, so the test would only cost a call:
	 * a number is then read as a float, which names the same type in the
	 * error Go raises. */
	if (hint != ZLUA_HINT_REF && lua_isinteger(L, idx)) {
		a->type = LUA_TNUMBER;
		a->isint = 1;
		a->v.i = lua_tointeger(L, idx);
		return;
	}
#endif
	a->type = lua_type(L, idx);
	switch (a->type) {
	case LUA_TNUMBER: /* a float (LuaJIT: any number) */
		a->v.n = lua_tonumber(L, idx);
		break;
	case LUA_TSTRING:
		a->v.s = lua_tolstring(L, idx, &a->len);
		break;
	case LUA_TBOOLEAN:
		a->v.b = lua_toboolean(L, idx);
		break;
	case LUA_TUSERDATA:
		a->v.p = env != NULL ? zlua_toown_ud(env, L, idx) : NULL;
		a->isint = env != NULL;
		break;
	case LUA_TLIGHTUSERDATA:
		a->v.i = (lua_Integer)(uintptr_t)lua_touserdata(L, idx);
		break;
	case LUA_TTABLE:
	case LUA_TFUNCTION:
	case LUA_TTHREAD:
		/* the object's identity, which Go's handle cache compares
		 * (callbackgate/argcache.go); objects never move */
		a->v.i = (lua_Integer)(uintptr_t)lua_topointer(L, idx);
		break;
	default:
		a->v.i = 0;
	}
}

/* [go-safe] read_arg for an argument whose Go parameter is numeric (hint
 * ZLUA_HINT_INT or ZLUA_HINT_NUM, never 0): one API call reads a number,
 * or a string Lua converts to one, where read_arg asks the type first.
 * What Go then sees converts to the same value: a Lua integer, an
 * integral float and a numeric string give the same Go integer (Go's
 * conversion goes through a float, so integers beyond 2^53 are left to
 * read_arg), and lua_tonumberx converts as Go's readFloat does. Returns 0,
 * writing nothing, for anything else (a fraction for an integer, a table,
 * ...): the caller then reads it with read_arg, so errors name the
 * value's own type. [-0, +0] */
static inline int read_num(lua_State *L, int idx, zlua_arg *a, unsigned hint)
{
	int ok;
#ifndef ZLUA_LUAJIT
	if (hint == ZLUA_HINT_INT) {
		lua_Integer v = lua_tointegerx(L, idx, &ok);
		/* within ±2^53, one comparison */
		if (LIKELY(ok && (lua_Unsigned)v + ((lua_Unsigned)1 << 53) <= ((lua_Unsigned)1 << 54))) {
			a->type = LUA_TNUMBER;
			a->isint = 1;
			a->len = 0;
			a->v.i = v;
			return 1;
		}
		return 0;
	}
#endif
	{
		/* LuaJIT: every number is a float; Go checks integrality */
		lua_Number v = lua_tonumberx(L, idx, &ok);
		(void)hint;
		if (LIKELY(ok)) {
			a->type = LUA_TNUMBER;
			a->isint = 0;
			a->len = 0;
			a->v.n = v;
			return 1;
		}
		return 0;
	}
}

/* [go-safe] Reads one value without allocating: strings are read in
 * place, numbers are not converted. [-0, +0] */
void zlua_read_arg(zlua_env *env, lua_State *L, int idx, zlua_arg *a)
{
	read_arg(env, L, idx, a, 0);
}

/* [go-safe] zlua_read_arg for argument 1 when it is probably a method's
 * receiver: a full userdata is recognised by its pointer before its type
 * is asked. A receiver in the proven-address cache needs nothing more (one
 * API call); else its length (a light userdata has length 0) and the same
 * checks as zlua_toown_ud decide ownership, and a 32-byte userdata found
 * ours enters the cache. Anything else takes read_arg. [-0, +0] */
static void read_self(zlua_env *env, lua_State *L, zlua_arg *a)
{
	zlua_udheader *h = (zlua_udheader *)lua_touserdata(L, 1);
	size_t len;
	const void **hit;
	if (h == NULL) {
		read_arg(env, L, 1, a, 0);
		return;
	}
	a->type = LUA_TUSERDATA;
	a->isint = 1; /* checked: v.p is the header, or NULL if not ours */
	a->len = 0;
	hit = zlua_proven_at(env->proven_ud, ZLUA_PROVEN_UD_BITS, h);
	if (*hit == (const void *)h) {
		a->v.p = h;
		return;
	}
	if ((len = zlua_rawlen(L, 1)) < sizeof *h) {
		read_arg(env, L, 1, a, 0);
		return;
	}
	/* a keyed ByObj userdata is proved ours by its address (read.c) */
	if (len == sizeof(ZLuaObjectUserData) && zlua_ownaddr(env, (ZLuaObjectUserData *)h))
		a->v.p = h;
	else
		a->v.p = h->magic == ZLUA_MAGIC && zlua_ownmt(env, L, 1, h) ? h : NULL;
	if (a->v.p != NULL && len == sizeof(ZLuaObjectUserData) && env->ud_block != 0)
		*hit = h;
}

/* Whether a call's name is the function's as the script wrote it, the
 * same way on both backends: a variable or field. Iterators, metamethods
 * and hooks are named differently by Lua 5.4 and LuaJIT ("for iterator"
 * against the hidden local "(for generator)", "index" against "__index"),
 * so those calls keep the Go name. */
static int call_site_named(const lua_Debug *ar)
{
	const char *w = ar->namewhat;
	if (ar->name == NULL || ar->name[0] == '(')
		return 0;
	return strcmp(w, "global") == 0 || strcmp(w, "local") == 0 || strcmp(w, "method") == 0 ||
	       strcmp(w, "field") == 0 || strcmp(w, "upvalue") == 0;
}

/* [go-safe] The name the call site gives the running C function, when it
 * names it as call_site_named accepts (a Lua-owned string, valid while
 * the call runs), else NULL. lua_getinfo "n" neither allocates nor raises
 * on either backend, so Go may call it with its frame live (a panic's
 * name, callbackgate panicName). [-0, +0] */
const char *zlua_site_name(lua_State *L)
{
	lua_Debug ar;
	if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.namewhat != NULL && call_site_named(&ar))
		return ar.name;
	return NULL;
}

/* [lua] Raises "bad argument #n to 'f' (detail)" like luaL_argerror, with
 * the caller's position, from a program INT argn, STR fname, STR detail.
 * A positive argn counts the arguments as Lua passed them: the function
 * is named as the call site names it (local g = f; g(x) reads 'g'), with
 * fname where the call has no such name (pcall(f), a tail call, an
 * iterator, a metamethod: call_site_named); in a call with method syntax (obj:f(...)) self is not
 * counted and an error in self reads "calling 'f' on bad self", as
 * luaL_argerror words both. A negative argn is a Go method's, which
 * counts after its receiver already and keeps fname (Type:Method). */
static int raise_argerror(lua_State *L, zlua_env *env)
{
	int top = lua_gettop(L), argn;
	const char *name;
	lua_Debug ar;
	zlua_prog_run_env(L, env);
	argn = (int)lua_tointeger(L, top + 1);
	name = lua_tostring(L, top + 2);
	luaL_where(L, 1);
	if (argn < 0) {
		argn = -argn;
	} else if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.namewhat != NULL) {
		if (call_site_named(&ar))
			name = ar.name;
		if (strcmp(ar.namewhat, "method") == 0 && --argn == 0) {
			lua_pushfstring(L, "calling '%s' on bad self (%s)", name, lua_tostring(L, top + 3));
			lua_concat(L, 2);
			return lua_error(L);
		}
	}
	lua_pushfstring(L, "bad argument #%d to '%s' (%s)", argn, name, lua_tostring(L, top + 3));
	lua_concat(L, 2);
	return lua_error(L);
}

/* Whether f is one of zlua's __index/__newindex C functions, which call
 * the Go getter and setter on behalf of the indexing code. */
static int is_indexer(lua_CFunction f)
{
	return f != NULL && (f == zlua_obj_index || f == zlua_obj_findex || f == zlua_obj_fnewindex ||
			     f == zlua_sv_index || f == zlua_sv_newindex);
}

/* [lua] luaL_where(L, 1), except that a Go field getter or setter called
 * by zlua's __index or __newindex (C functions, or LuaJIT's =zlua.index
 * closures) reports the position of the Lua code indexing the object.
 * [-0, +1] */
static void where(lua_State *L)
{
	lua_Debug ar;
	int level = 1;
	while (lua_getstack(L, level, &ar)) {
		int skip;
		lua_getinfo(L, "Sf", &ar);
		skip = is_indexer(lua_tocfunction(L, -1)) || strcmp(ar.source, ZLUA_INDEX_CHUNK) == 0;
		lua_pop(L, 1);
		if (!skip)
			break;
		level++;
	}
	luaL_where(L, level);
}

/* [lua] Pushes a scalar result set by Go (nil, boolean or number). */
static inline void push_ret(lua_State *L, const zlua_arg *r)
{
	switch (r->type) {
	case LUA_TNUMBER:
#ifndef ZLUA_LUAJIT
		if (r->isint)
			lua_pushinteger(L, r->v.i);
		else
#endif
			lua_pushnumber(L, r->isint ? (lua_Number)r->v.i : r->v.n);
		break;
	case LUA_TBOOLEAN:
		lua_pushboolean(L, r->v.b);
		break;
	default:
		lua_pushnil(L);
	}
}

/* [lua] The sentinel at upvalue 1 of the running Go function closure, if
 * it is one of this env's: debug.setupvalue can put any value there, so
 * it is checked (full userdata of the sentinel's exact size, zlua magic,
 * kind FUNC, made for the state's env, which is the allocator's ud) before
 * any byte of it is trusted. No metatable lookup: the size and header
 * rule out every userdata but sentinels, and only zlua writes headers. A
 * sentinel that passed is entered in the env's proven-address cache, and
 * an address found there skips the checks: the entry is cleared before
 * the sentinel's __gc releases it or its block is freed (zlua_unprove). */
static zlua_funcud *sentinel(lua_State *L, zlua_env *env)
{
	/* lua_touserdata is NULL for anything but userdata (LuaJIT's objlen
	 * would convert a number), and a light userdata has length 0. */
	zlua_funcud *fu = (zlua_funcud *)lua_touserdata(L, lua_upvalueindex(1));
	const void **hit;
	if (UNLIKELY(fu == NULL))
		return NULL;
	hit = zlua_proven_at(env->proven_fn, ZLUA_PROVEN_FN_BITS, fu);
	if (LIKELY(*hit == (const void *)fu))
		return fu;
	if (zlua_rawlen(L, lua_upvalueindex(1)) != sizeof *fu || fu->header.magic != ZLUA_MAGIC ||
	    fu->header.kind != ZLUA_KIND_FUNC || fu->env != env)
		return NULL;
	if (env->ud_block != 0 && !(fu->header.flags & ZLUA_F_RELEASED))
		*hit = fu;
	return fu;
}

/* The proven-address caches rely on zlua_alloc's free hook, which sees
 * blocks of a ByObj userdata's size: a sentinel must have that size. */
_Static_assert(sizeof(zlua_funcud) == sizeof(ZLuaObjectUserData), "sentinel size");

/* Copies the position prefix on top of the stack (a string) into the
 * remembered-error slot Go named, so Go can rebuild the exact text raised.
 * A prefix too long to keep leaves the slot unmatched. [-0, +0] */
static void keep_where(lua_State *L, zlua_env *env)
{
	zlua_raised *r = &env->raised[(env->raise_slot - 1) % ZLUA_RECENT];
	size_t n;
	const char *w = lua_tolstring(L, -1, &n);
	env->raise_slot = 0;
	if (w == NULL || n > sizeof r->where) {
		r->seq = 0;
		return;
	}
	memcpy(r->where, w, n);
	r->len = (uint32_t)n;
	r->seq = env->raise_seq;
}

/* [lua] The trampoline's end for a status other than RET0/1/2 and
 * RETOBJ: a push program's results, a yield or an error raised after Go
 * returned. Out of line: the common statuses stay short. [-0, +k] */
static __attribute__((noinline)) int finish(lua_State *L, zlua_env *env, const zlua_frame *fr, int st)
{
	int k, charging = env->charging;
	switch (st) {
	case ZLUA_RET:
	case ZLUA_YIELD:
		/* the companions of a script call's results are charged
		 * (structs.c); a raise leaves charging set, which only the
		 * results of Go calls read before zlua_op clears it */
		env->charging = 1;
		k = zlua_prog_run_env(L, env);
		env->charging = charging;
		return st == ZLUA_RET ? k : lua_yield(L, k);
	case ZLUA_ERRPOS:
		where(L);
		if (env->raise_slot != 0)
			keep_where(L, env);
		zlua_prog_run_env(L, env);
		lua_concat(L, 2);
		return lua_error(L);
	case ZLUA_ARGERR:
		return raise_argerror(L, env);
	default: /* ZLUA_ERR */
		zlua_prog_run_env(L, env);
		return lua_error(L);
	}
}

/* 1 when the low two bits of hints say a Lua integer (read_num then read
 * one), else 0; always 0 on LuaJIT, whose numbers are floats. */
#ifndef ZLUA_LUAJIT
#define HINTED_INT(hints) ((uint32_t)(((hints) & 3u) == ZLUA_HINT_INT))
#else
#define HINTED_INT(hints) 0u
#endif

/* 1 when the low two bits of hints say a number (ZLUA_HINT_INT or
 * ZLUA_HINT_NUM: read_num first), 0 for no hint and ZLUA_HINT_REF. */
#define HINTED_NUM(hints) ((((hints) & 3u) - 1u) < 2u)

/* [lua] The refusal of a closure whose Go function was released (its
 * sentinel's __gc ran): out of line, as refuse. Raises. */
static __attribute__((noinline, cold)) int refuse_released(lua_State *L)
{
	return luaL_error(L, "attempt to call a released Go function");
}

/* [lua] The trampoline's refusal of a closure whose upvalue is not a
 * live sentinel of this env: out of line, so the checks cost a test each
 * on the trampoline's path. Raises. */
static __attribute__((noinline, cold)) int refuse(lua_State *L, const zlua_funcud *fu)
{
	if (fu == NULL)
		return luaL_error(L, "attempt to call a Go function whose upvalue was replaced");
	return refuse_released(L);
}

/* The trampolines' work once the Go function is known: fnid, its
 * argument hints and its flags word (the sentinel's header flags, or the
 * fast id's state), where the receiver guess ZLUA_F_SELFUD is kept. flags
 * is not used once Go was entered (a nested registration may move a fast
 * id's state). Inlined into both trampolines. Lua errors are raised only
 * before Go is entered (argument reads) or after it returned (finish).
 * [-0, +k] */
static inline __attribute__((always_inline)) int run_call(lua_State *L, zlua_env *env, uint32_t fnid,
							 uint32_t hints, uint16_t *flags)
{
	zlua_frame fr;
	int n, m, i, st, own;
	uint32_t intok;
	n = lua_gettop(L);
	/* No stack reservation here: Go gets the LUA_MINSTACK slots every C
	 * function has and reserves more where it needs them (ZLUA_GO_STACK). */
	fr.L = L;
	/* Go's dispatch changes its current thread only for a call from
	 * another one; otherwise the caller's is L, restored by the panic
	 * path from here */
	fr.caller = L;
	fr.tid = zlua_tid();
	fr.nargs = n;
	/* One argument through the cgo export, as cheap to pass as three */
	fr.fnid = fnid;
	fr.goid = env->goid;
	intok = 0;
	if (n > 0) {
		/* A Go function is called the same way each time: its last call
		 * says which read order wins (a wrong guess costs one call). A
		 * number read through its hint is never a userdata. */
		if (*flags & ZLUA_F_SELFUD) {
			read_self(env, L, &fr.args[0]);
			if (fr.args[0].type != LUA_TUSERDATA)
				*flags ^= ZLUA_F_SELFUD;
		} else if (HINTED_NUM(hints) && read_num(L, 1, &fr.args[0], hints & 3u)) {
			intok = HINTED_INT(hints);
		} else {
			read_arg(env, L, 1, &fr.args[0], hints & 3u);
			if (fr.args[0].type == LUA_TUSERDATA)
				*flags ^= ZLUA_F_SELFUD;
		}
	}
	/* the second argument unrolled: most calls have one or two */
	hints >>= 2;
	if (n > 1) {
		if (HINTED_NUM(hints) && read_num(L, 2, &fr.args[1], hints & 3u))
			intok |= HINTED_INT(hints) << 1;
		else
			read_arg(env, L, 2, &fr.args[1], hints & 3u);
	}
	if (n > 2) {
		m = n < ZLUA_FAST_ARGS ? n : ZLUA_FAST_ARGS;
		for (i = 2; i < m; i++) {
			hints >>= 2;
			if (HINTED_NUM(hints) && read_num(L, i + 1, &fr.args[i], hints & 3u))
				intok |= HINTED_INT(hints) << i;
			else
				read_arg(env, L, i + 1, &fr.args[i], hints & 3u);
		}
	}
	fr.intok = intok;
	zlua_count_call(env);
	own = zlua_owner_begin(env, fr.tid);
	st = zluaGateCall(&fr);
	zlua_owner_end(env, own);
	/* the statuses without a push program first, in the order of how
	 * common they are; the rest out of line (fewer instructions and code
	 * lines on the hot path) */
	if (st == ZLUA_RETINT) {
#ifndef ZLUA_LUAJIT
		lua_pushinteger(L, fr.ret.v.i);
#else
		lua_pushnumber(L, (lua_Number)fr.ret.v.i);
#endif
		return 1;
	}
	if (st == ZLUA_RET1) {
		push_ret(L, &fr.ret);
		return 1;
	}
	if (st == ZLUA_RET0)
		return 0;
	if (st == ZLUA_RET2) {
		push_ret(L, &fr.ret);
		push_ret(L, &fr.ret2);
		return 2;
	}
	if (st == ZLUA_RETOBJ) {
		zlua_obj_push_top(L, env, (uint32_t)fr.ret.v.i, (uint32_t)((uint64_t)fr.ret.v.i >> 32),
				  (uint32_t)fr.ret.len, (int)(int32_t)(fr.ret.len >> 32), fr.ret.isint);
		return 1; /* the userdata on top */
	}
	return finish(L, env, &fr, st);
}

ZLUA_HOT int zlua_trampoline(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	zlua_funcud *fu = sentinel(L, env);
	if (UNLIKELY(fu == NULL || (fu->header.flags & ZLUA_F_RELEASED)))
		return refuse(L, fu);
	return run_call(L, env, fu->fnid, fu->hints, &fu->header.flags);
}

/* A fast id's trampoline (fasttramp.c's functions call it with their id):
 * the closure's sentinel is not read. A fast id whose sentinel was
 * collected is never given to another function (Go retires it), so
 * ZLUA_F_RELEASED here is final: a closure a finalizer kept alive is
 * refused as the sentinel's trampoline refuses it. */
ZLUA_HOT int zlua_tramp_fast(lua_State *L, uint32_t fnid)
{
	zlua_env *env = zlua_envof(L);
	zlua_fastfn *f = &env->fastfn[fnid];
	if (UNLIKELY(f->flags & ZLUA_F_RELEASED))
		return refuse_released(L);
	return run_call(L, env, fnid, f->hints, &f->flags);
}

int zlua_funcud_gc(lua_State *L)
{
	zlua_funcud *fu;
	zlua_udheader *h;
	zlua_env *env = zlua_envof(L);
	/* debug.getmetatable lets a script call this __gc on any value, and
	 * debug.setmetatable give a sentinel a forged metatable: act only on a
	 * live function sentinel whose metatable names this env. */
	if (env == NULL || (h = zlua_toown(env, L, 1)) == NULL || h->kind != ZLUA_KIND_FUNC ||
	    zlua_rawlen(L, 1) < sizeof *fu || (h->flags & ZLUA_F_RELEASED))
		return 0;
	fu = (zlua_funcud *)h;
	if (fu->env != env)
		return 0;
	fu->header.flags |= ZLUA_F_RELEASED;
	if (fu->fnid < env->fastfn_cap)
		env->fastfn[fu->fnid].flags |= ZLUA_F_RELEASED; /* final: Go retires the id */
	zlua_unprove(env, fu); /* the trampoline checks it in full again */
	env->armed[fu->fnid] = 2;
	if (env->freed_len == env->freed_cap) {
		size_t cap = env->freed_cap ? env->freed_cap * 2 : 256;
		uint32_t *q = (uint32_t *)realloc(env->freed, cap * sizeof *q);
		if (q == NULL) {
			env->freed_lost++; /* reported in stats; never raises */
			return 0;
		}
		env->freed = q;
		env->freed_cap = cap;
	}
	env->freed[env->freed_len++] = fu->fnid;
	env->queued = 1;
	return 0;
}

/* The trampoline's ending for a Go call that already returned st (a
 * LuaJIT leaf call finished by zlua_jit_finish, which restored env's
 * program and raise slot first): the common statuses as zlua_trampoline
 * ends them, the rest through the same finish. */
int zlua_gate_finish(lua_State *L, zlua_env *env, zlua_frame *fr, int st)
{
	switch (st) {
	case ZLUA_RETINT:
#ifndef ZLUA_LUAJIT
		lua_pushinteger(L, fr->ret.v.i);
#else
		lua_pushnumber(L, (lua_Number)fr->ret.v.i);
#endif
		return 1;
	case ZLUA_RET1:
		push_ret(L, &fr->ret);
		return 1;
	case ZLUA_RET0:
		return 0;
	case ZLUA_RET2:
		push_ret(L, &fr->ret);
		push_ret(L, &fr->ret2);
		return 2;
	case ZLUA_RETOBJ:
		zlua_obj_push(L, env, (uint32_t)fr->ret.v.i, (uint32_t)((uint64_t)fr->ret.v.i >> 32),
			      (uint32_t)fr->ret.len, (int)(int32_t)(fr->ret.len >> 32), fr->ret.isint);
		return 1;
	default:
		return finish(L, env, fr, st);
	}
}
