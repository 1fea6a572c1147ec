/* pattern_lib.c: zlua's string.find, string.match, string.gmatch and
 * string.gsub, on the matcher of pattern.c. They replace the standard
 * functions in every Env (both library sets) and keep their arguments,
 * results and messages, per backend: Lua 5.4.4, or LuaJIT 2.1 with Lua
 * 5.1's rules (start positions, gmatch without init, '%' in replacement
 * strings, patterns ending at '\0'). */
#include "pattern.h"

#ifdef ZLUA_LUAJIT
/* LuaJIT converts a number argument to int32 with a plain C cast
 * (lj_num2int); on x86 an out-of-range value or NaN becomes INT32_MIN. */
static int32_t jit_toint(lua_Number n)
{
#if defined(__x86_64__) || defined(__i386__)
	if (!(n > -2147483649.0 && n < 2147483648.0))
		return INT32_MIN;
#endif
	return (int32_t)n;
}

/* [lua] LuaJIT's optional int32 argument (lj_lib_optint). [-0, +0] */
static int32_t jit_optint(lua_State *L, int arg, int32_t def)
{
	return lua_isnoneornil(L, arg) ? def : jit_toint(luaL_checknumber(L, arg));
}
#endif

/* [lua] The 0-based offset where find, match and gmatch start (argument
 * arg, default 1); 0 when the start lies past the end of the subject and
 * nothing can be found (Lua 5.4; LuaJIT clamps to the end). [-0, +0] */
static int start_offset(lua_State *L, int arg, size_t ls, size_t *off)
{
#ifdef ZLUA_LUAJIT
	int64_t st = jit_optint(L, arg, 1);
	st = st < 0 ? st + (int64_t)(int32_t)ls : st - 1;
	if (st < 0)
		st = 0;
	*off = (size_t)st > ls ? ls : (size_t)st;
	return 1;
#else
	lua_Integer pos = luaL_optinteger(L, arg, 1);
	size_t st;
	if (pos > 0)
		st = (size_t)pos - 1;
	else if (pos == 0 || pos < -(lua_Integer)ls)
		st = 0;
	else
		st = ls + (size_t)pos;
	*off = st;
	return st <= ls;
#endif
}

/* Whether p has a character that makes it a pattern rather than plain
 * text ('\0' bytes included on both backends). */
static int has_specials(const char *p, size_t lp)
{
	size_t i;
	for (i = 0; i < lp; i++)
		switch (p[i]) {
		case '^': case '$': case '*': case '+': case '?':
		case '.': case '(': case '[': case '%': case '-':
			return 1;
		}
	return 0;
}

/* [lua] string.find (find = 1) and string.match (find = 0).
 * [-0, +results] */
static int find_aux(lua_State *L, int find)
{
	size_t ls, lp, off;
	const char *s = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	const char *q, *e;
	zlua_matcher m;
	zlua_patinfo pi;
	int anchor;
	if (!start_offset(L, 3, ls, &off)) {
		lua_pushnil(L);
		return 1;
	}
	if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
		m.L = L;
		m.env = NULL;
		m.budget = ZLUA_PAT_TICK;
		q = zlua_pat_plain(&m, s + off, ls - off, p, lp);
		if (q == NULL) {
			lua_pushnil(L);
			return 1;
		}
		lua_pushinteger(L, (lua_Integer)(q - s) + 1);
		lua_pushinteger(L, (lua_Integer)(q - s + lp));
		return 2;
	}
	anchor = *p == '^';
	zlua_pat_analyse(p + anchor, lp - anchor, &pi);
	zlua_pat_init(&m, L, s, ls, p + anchor, lp - anchor, &pi);
	{
		ZLUA_PAT_FRAMES(&m, pi.nframes);
		q = zlua_pat_search(&m, s + off, anchor, NULL, &e);
		if (q == NULL) {
			lua_pushnil(L);
			return 1;
		}
		if (!find)
			return zlua_pat_push_captures(&m, q, e);
		lua_pushinteger(L, (lua_Integer)(q - s) + 1);
		lua_pushinteger(L, (lua_Integer)(e - s));
		return 2 + zlua_pat_push_captures(&m, NULL, NULL);
	}
}

/* [lua] string.find. */
static int pat_find(lua_State *L)
{
	return find_aux(L, 1);
}

/* [lua] string.match. */
static int pat_match(lua_State *L)
{
	return find_aux(L, 0);
}

/* State of a gmatch iterator: offsets (no pointers) and the pattern's
 * analysis. */
typedef struct gmatch_state {
	size_t pos;     /* where the next search starts */
	ptrdiff_t last; /* end of the last match, -1 before the first (5.4) */
	zlua_patinfo info;
} gmatch_state;

/* [lua] One step of a gmatch iterator over subject, pattern and state at
 * stack indices (or upvalues) is, ip, ist. A script with the debug
 * library can replace them, so each is checked and the offsets bounded:
 * a foreign value gives wrong matches or an error, never a read outside
 * the subject. Returns the captures pushed, 0 at the end.
 * [-0, +captures] */
static int gmatch_step(lua_State *L, int is, int ip, int ist)
{
	size_t ls, lp;
	const char *s = lua_tolstring(L, is, &ls), *p = lua_tolstring(L, ip, &lp);
	const char *q, *e, *reject = NULL;
	gmatch_state *st = (gmatch_state *)lua_touserdata(L, ist);
	zlua_matcher m;
	if (s == NULL || p == NULL || st == NULL || zlua_rawlen(L, ist) != sizeof *st ||
	    st->info.nframes < 1 || st->info.nframes >= ZLUA_PAT_LEVELS ||
	    st->info.first < -1 || st->info.first > 255)
		return luaL_error(L, "invalid gmatch iterator state");
	if (st->pos > ls)
		return 0;
#ifndef ZLUA_LUAJIT
	if (st->last >= 0 && (size_t)st->last <= ls)
		reject = s + st->last;
#endif
	zlua_pat_init(&m, L, s, ls, p, lp, &st->info);
	{
		ZLUA_PAT_FRAMES(&m, st->info.nframes);
		q = zlua_pat_search(&m, s + st->pos, 0, reject, &e);
		if (q == NULL)
			return 0;
		st->pos = (size_t)(e - s);
		st->last = e - s;
#ifdef ZLUA_LUAJIT
		st->pos += e == q; /* Lua 5.1: an empty match moves on one byte */
#endif
		return zlua_pat_push_captures(&m, q, e);
	}
}

#ifdef ZLUA_LUAJIT
/* LuaJIT's trace recorder guards a call of a C closure on the closure's
 * identity, so a new C iterator per gmatch call would make every loop over
 * gmatch spawn side traces until it is blacklisted (3.6x slower than
 * stock). The iterator is therefore a Lua closure, made by this factory,
 * whose prototype the recorder specializes on; it tail-calls the one
 * shared C step, so errors keep the position of the loop calling it. */
static const char gmatch_factory[] =
	"local step = ...\n"
	"return function(s, p, st) return function() return step(s, p, st) end end";

/* [lua] The C step behind every gmatch iterator: subject, pattern,
 * state as arguments. */
static int gmatch_next(lua_State *L)
{
	return gmatch_step(L, 1, 2, 3);
}
#else
/* [lua] The function string.gmatch returns. Upvalues: subject, pattern,
 * state. */
static int gmatch_next(lua_State *L)
{
	return gmatch_step(L, lua_upvalueindex(1), lua_upvalueindex(2), lua_upvalueindex(3));
}
#endif

/* [lua] string.gmatch (Lua 5.4: with init). LuaJIT: upvalue 1 is the
 * iterator factory. */
static int pat_gmatch(lua_State *L)
{
	size_t ls, lp, off = 0;
	const char *p;
	gmatch_state *st;
	luaL_checklstring(L, 1, &ls);
	p = luaL_checklstring(L, 2, &lp);
#ifndef ZLUA_LUAJIT
	if (!start_offset(L, 3, ls, &off))
		off = ls + 1; /* nothing to find */
#endif
	lua_settop(L, 2);
	st = (gmatch_state *)zlua_newuserdata(L, sizeof *st);
	st->pos = off;
	st->last = -1;
	zlua_pat_analyse(p, lp, &st->info);
#ifdef ZLUA_LUAJIT
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, 3, 1);
#else
	lua_pushcclosure(L, gmatch_next, 3);
#endif
	return 1;
}

/* [lua] Appends the replacement string (argument 3) for the match s..e,
 * with its '%' escapes. [-0, +0] (the buffer may grow on the stack) */
static void add_string(zlua_matcher *m, luaL_Buffer *b, const char *s, const char *e)
{
	lua_State *L = m->L;
	size_t l;
	const char *r = lua_tolstring(L, 3, &l), *end = r + l, *q;
	while ((q = (const char *)memchr(r, '%', (size_t)(end - r))) != NULL) {
		int c = (unsigned char)q[1]; /* the terminating '\0' after a final '%' */
		luaL_addlstring(b, r, (size_t)(q - r));
		r = q + 2;
		if (c == '0') {
			luaL_addlstring(b, s, (size_t)(e - s));
		} else if (c >= '1' && c <= '9') {
			const char *cap;
			ptrdiff_t n = zlua_pat_capture(m, c - '1', s, e, &cap);
			if (n == ZLUA_CAP_POSITION) {
				lua_pushinteger(L, (lua_Integer)(cap - m->src) + 1);
				luaL_addvalue(b);
			} else {
				luaL_addlstring(b, cap, (size_t)n);
			}
		} else {
#ifdef ZLUA_LUAJIT
			luaL_addchar(b, (char)c); /* Lua 5.1: '%x' is x */
#else
			if (c != '%')
				luaL_error(L, "invalid use of '%c' in replacement string", '%');
			luaL_addchar(b, '%');
#endif
		}
		if (r > end) /* the '%' was last */
			return;
	}
	luaL_addlstring(b, r, (size_t)(end - r));
}

/* [lua] Appends the replacement of the match s..e; returns whether it
 * differs from the match (a function or table giving nil or false keeps
 * the original text). [-0, +0] (the buffer may grow on the stack) */
static int add_value(zlua_matcher *m, luaL_Buffer *b, const char *s, const char *e, int tr)
{
	lua_State *L = m->L;
	if (tr == LUA_TFUNCTION) {
		int n;
		lua_pushvalue(L, 3);
		n = zlua_pat_push_captures(m, s, e);
		lua_call(L, n, 1);
	} else if (tr == LUA_TTABLE) {
		zlua_pat_push_capture(m, 0, s, e);
		lua_gettable(L, 3);
	} else {
		add_string(m, b, s, e);
		return 1;
	}
	if (!lua_toboolean(L, -1)) {
		lua_pop(L, 1);
		luaL_addlstring(b, s, (size_t)(e - s));
		return 0;
	}
	if (!lua_isstring(L, -1))
		return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
	luaL_addvalue(b);
	return 1;
}

/* [lua] string.gsub. */
static int pat_gsub(lua_State *L)
{
	size_t ls, lp;
	const char *src = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	const char *end = src + ls, *last = NULL, *q, *e;
	int tr = lua_type(L, 3), anchor = *p == '^', changed = 0;
#ifdef ZLUA_LUAJIT
	lua_Integer max = (int)luaL_optinteger(L, 4, (int)(ls + 1));
#else
	lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
#endif
	lua_Integer n = 0;
	zlua_matcher m;
	zlua_patinfo pi;
	luaL_Buffer b;
	if (tr != LUA_TNUMBER && tr != LUA_TSTRING && tr != LUA_TFUNCTION && tr != LUA_TTABLE)
#ifdef ZLUA_LUAJIT
		return luaL_argerror(L, 3, "string/function/table expected");
#else
		return luaL_typeerror(L, 3, "string/function/table");
#endif
	/* LuaJIT: a replacement function or __index that calls gsub again
	 * recurses on the C stack without bound (cstack.c). */
	if ((tr == LUA_TFUNCTION || tr == LUA_TTABLE) && zlua_cstack_over(zlua_envof(L))) {
		lua_pushliteral(L, "C stack overflow");
		return lua_error(L);
	}
	zlua_pat_analyse(p + anchor, lp - anchor, &pi);
	zlua_pat_init(&m, L, src, ls, p + anchor, lp - anchor, &pi);
	{
		ZLUA_PAT_FRAMES(&m, pi.nframes);
		luaL_buffinit(L, &b);
		while (n < max) {
			q = zlua_pat_search(&m, src, anchor, last, &e);
			if (q == NULL)
				break;
			luaL_addlstring(&b, src, (size_t)(q - src));
			n++;
			changed |= add_value(&m, &b, q, e, tr);
			src = last = e;
#ifdef ZLUA_LUAJIT
			last = NULL; /* Lua 5.1: an empty match copies one byte on */
			if (e == q) {
				if (q == end)
					break;
				luaL_addchar(&b, *src++);
			}
#endif
			if (anchor)
				break;
		}
		if (!changed) {
			lua_pushvalue(L, 1);
		} else {
			luaL_addlstring(&b, src, (size_t)(end - src));
			luaL_pushresult(&b);
		}
		lua_pushinteger(L, n);
		return 2;
	}
}

void zlua_open_patterns(lua_State *L, zlua_env *env)
{
	static const luaL_Reg funcs[] = {
		{ "find", pat_find },
		{ "match", pat_match },
		{ "gmatch", pat_gmatch },
		{ "gsub", pat_gsub },
		{ NULL, NULL }
	};
	const luaL_Reg *r;
	(void)env;
	lua_getglobal(L, "string");
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		return;
	}
	lua_createtable(L, 0, 4); /* [string, stock] */
	for (r = funcs; r->name != NULL; r++) {
		lua_getfield(L, -2, r->name);
		lua_setfield(L, -2, r->name);
#ifdef ZLUA_LUAJIT
		if (r->func == pat_gmatch) {
			if (zlua_load_own(L, gmatch_factory, sizeof gmatch_factory - 1, "=zlua.gmatch") != 0)
				lua_error(L);
			lua_pushcfunction(L, gmatch_next);
			lua_call(L, 1, 1);
			lua_pushcclosure(L, pat_gmatch, 1);
			lua_setfield(L, -3, r->name);
			continue;
		}
#endif
		lua_pushcfunction(L, r->func);
		lua_setfield(L, -3, r->name);
	}
	lua_setfield(L, LUA_REGISTRYINDEX, ZLUA_STOCK_PATTERNS);
	lua_pop(L, 1);
}
