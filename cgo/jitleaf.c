/* jitleaf.c: LuaJIT closures for leaf methods (zlua.Leaf).
 *
 * A call of a lua_CFunction cannot be compiled by LuaJIT: every method
 * call through the trampoline leaves the trace and pays the classic API.
 * A Go method declared leaf promises not to call into its Env while it
 * runs (Go enforces it, see callbackgate/leaf.go), so on LuaJIT its entry
 * in the type's methods table is a Lua closure that calls zlua_jit_call
 * through the FFI: a C function that uses no Lua API, checks the
 * receiver like jitindex.c's zlua_jit_get (magic, kind ByObj, the
 * closure's binding, not released, the address proof), builds the frame
 * the trampoline would build and enters Go through zluaLeafCall. The
 * closure reads the results with zlua_jit_res, numbers all.
 *
 * Nothing raises inside the FFI call. What C or Go refuses (an argument
 * of another type, a non-integral number for an integer, an unusual
 * receiver, a limited call, ...) goes, before anything ran, to the C
 * closure (the trampoline), so every error and conversion stays the C
 * path's. When the method ran and its results need Lua (an error, a
 * panic, results only a program pushes), zlua_jit_call* keeps Go's
 * program and the closure tail-calls zlua_jit_finish, which ends the call
 * as the trampoline would (zlua_gate_finish), with the caller's position.
 *
 * Results wait in env->leaf between the FFI call and the closure's reads;
 * Lua code can run in between (a finalizer, a hook), so another leaf call
 * made meanwhile is refused (it takes the C closure) until they are read.
 * An error thrown in between leaves them unread: leaf calls then take the
 * C closure until the outermost call of the Env ends (zlua_jit_leafreset).
 *
 * The closures keep the FFI function pointers, the env as a void *, the C
 * closure, numbers and the limited flag table: no cdata that can be
 * indexed or offset (see "What scripts can reach of zlua's C"). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "zlua.h"

#ifdef ZLUA_LUAJIT

/* The maker chunk, run once per env with (the base library's type and
 * getmetatable, kept when the env was made: a script may have replaced the
 * globals since; ffi, the env, the address of zlua_jit_res,
 * zlua_jit_finish, the limited flag table of hook.c, the identity cache,
 * the address of zlua_jit_obj, zlua_jit_call0..4). It returns make(cfn, tid, fnid, nparams, boolparams,
 * nresults, boolresults), the leaf closure over the C closure cfn. The
 * closures take (o, ...) so that the C closure gets exactly the arguments
 * the caller passed (its errors count them).
 *
 * Everything a call runs is inside its closure, with no helper function:
 * LuaJIT counts calls of a function towards making it a trace's root, and
 * a helper called twice per iteration of the script's loop would become
 * hot before the loop does; traces then start in the helper and the loop
 * never gets its own (each call site stitches new traces without end).
 * So leaf_src is the header below and one closure per arity, written out
 * by leaf_chunk. */
static const char leaf_head[] =
	"local type, getmetatable, ffi, envp, resp, finish, limited, cache, objp, p0, p1, p2, p3, p4 = ...\n"
	"local env = ffi.cast('void *', envp)\n"
	"local res = ffi.cast('double (*)(void *, int)', resp)\n"
	"local isobj = ffi.cast('int (*)(void *, const void *)', objp)\n"
	"local call0 = ffi.cast('int (*)(void *, const void *, uint32_t, uint32_t)', p0)\n"
	"local call1 = ffi.cast('int (*)(void *, const void *, uint32_t, uint32_t, double)', p1)\n"
	"local call2 = ffi.cast('int (*)(void *, const void *, uint32_t, uint32_t, double, double)', p2)\n"
	"local call3 = ffi.cast('int (*)(void *, const void *, uint32_t, uint32_t, double, double, double)', p3)\n"
	"local call4 = ffi.cast('int (*)(void *, const void *, uint32_t, uint32_t, double, double, double, double)', p4)\n"
	"return function(cfn, tid, fnid, n, pb, nres, rb)\n"
	"  local spec = tid * 16 + pb\n"
	"  local b1, b2, b3, b4 = pb % 2 >= 1, pb % 4 >= 2, pb % 8 >= 4, pb % 16 >= 8\n"
	"  local t1, t2 = b1 and 'boolean' or 'number', b2 and 'boolean' or 'number'\n"
	"  local t3, t4 = b3 and 'boolean' or 'number', b4 and 'boolean' or 'number'\n"
	"  local rb1, rb2 = rb % 2 >= 1, rb % 4 >= 2\n";

/* One closure: arguments a1..an checked against t1..tn, booleans passed
 * as 1/0; the answer 1 returns the results (booleans where
 * rb1/rb2), 2 goes to finish, 0 (refused) to the C closure, and a
 * negative one -1 - slot (an object result whose userdata lives) returns
 * the userdata the identity cache holds for slot once zlua_jit_obj has
 * checked it is the one, else goes to finish. The receiver
 * must be a full userdata with zlua's protected metatable: type() says
 * "userdata" for a light userdata too (an opaque handle), whose value the
 * FFI would pass as the address C reads a header at; no light userdata
 * has that metatable (only debug.setmetatable could give it one, and
 * debug comes with ffi). The JIT compiles the check to the metatable guard
 * the method lookup made already. */
static const char leaf_body[] =
	"    if not limited[1] and type(o) == 'userdata' and getmetatable(o) == '" ZLUA_PROTECTED_MT "'%s then\n"
	"      local s = call%d(env, o, spec, fnid%s)\n"
	"      if s == 1 then\n"
	"        if nres == 0 then return end\n"
	"        local r = res(env, 0)\n"
	"        if rb1 then r = r ~= 0 end\n"
	"        if nres == 1 then return r end\n"
	"        local r2 = res(env, 1)\n"
	"        if rb2 then r2 = r2 ~= 0 end\n"
	"        return r, r2\n"
	"      end\n"
	"      if s < 0 then\n"
	"        local u = cache[-1 - s]\n"
	"        if type(u) == 'userdata' and isobj(env, u) == 1 then return u end\n"
	"        return finish()\n"
	"      end\n"
	"      if s == 2 then return finish() end\n"
	"    end\n"
	"    return cfn(...)\n"
	"  end end\n";

/* Writes leaf_src into buf (of size cap); returns its length. */
static size_t leaf_chunk(char *buf, size_t cap)
{
	size_t len = 0;
	int n, i;
	len += (size_t)snprintf(buf + len, cap - len, "%s", leaf_head);
	for (n = 0; n <= 4; n++) {
		char checks[200], args[200], locals[64];
		size_t c = 0, a = 0, l = 0;
		checks[0] = args[0] = locals[0] = 0;
		for (i = 1; i <= 4; i++) {
			if (i <= n) {
				c += (size_t)snprintf(checks + c, sizeof checks - c, " and type(a%d) == t%d", i, i);
				a += (size_t)snprintf(args + a, sizeof args - a, ", (b%d and (a%d and 1 or 0) or a%d)", i, i, i);
				l += (size_t)snprintf(locals + l, sizeof locals - l, "%sa%d", i > 1 ? ", " : "", i);
			}
		}
		/* the receiver too from the varargs: the C closure's call passes
		 * them on as they came, so a call without a receiver says "no
		 * value" as the undeclared method does (probe L1 F1) */
		len += (size_t)snprintf(buf + len, cap - len, "  if n == %d then return function(...)\n", n);
		len += (size_t)snprintf(buf + len, cap - len, "    local o%s%s = ...\n", n > 0 ? ", " : "", locals);
		len += (size_t)snprintf(buf + len, cap - len, leaf_body, checks, n, args);
	}
	len += (size_t)snprintf(buf + len, cap - len, "end\n");
	return len;
}

/* Stores a scalar result as the number the closure reads; 0 for
 * anything but a number or a boolean (then zlua_jit_finish pushes it). */
static int leaf_num(const zlua_arg *r, double *out)
{
	if (r->type == LUA_TNUMBER) {
		*out = r->isint ? (double)r->v.i : r->v.n;
		return 1;
	}
	if (r->type == LUA_TBOOLEAN) {
		*out = r->v.b != 0;
		return 1;
	}
	return 0;
}

/* Keeps env's program and raise slot for zlua_jit_finish: Lua code that
 * runs before it (a finalizer, a hook) may make Go calls that reuse them.
 * A program that cannot be kept makes zlua_jit_finish raise "not enough
 * memory". */
static void leaf_keep(zlua_env *env, zlua_leafcall *lf, int st)
{
	size_t n = env->prog_len;
	lf->st = st;
	lf->nomem = 0;
	lf->raise_slot = env->raise_slot;
	lf->raise_seq = env->raise_seq;
	env->raise_slot = 0;
	if (n > lf->prog_cap) {
		unsigned char *q = (unsigned char *)realloc(lf->prog, n);
		if (q == NULL) {
			lf->nomem = 1;
			n = 0;
		} else {
			lf->prog = q;
			lf->prog_cap = n;
		}
	}
	if (n > 0)
		memcpy(lf->prog, env->prog, n);
	lf->prog_len = n;
	env->prog_len = 0;
	lf->open = 2;
}

/* The live keyed userdata of the object result r (ZLUA_RETOBJ), or NULL:
 * a cached result (not a new slot's first userdata, not an unkeyed one)
 * of a slot that has one of r's generation. slot_ud names only live,
 * unreleased keyed userdata (ownaddr.c), so its gen can be read. Slots
 * past INT_MAX - 1 are left to zlua_jit_finish (the closure reads the
 * slot from an int). */
static const void *leaf_live_obj(const zlua_env *env, const zlua_arg *r)
{
	uint32_t slot = (uint32_t)r->v.i, gen = (uint32_t)((uint64_t)r->v.i >> 32);
	const ZLuaObjectUserData *o;
	if (r->isint != ZLUA_OBJ_CACHED || env->slot_ud == NULL || slot >= env->objcnt_cap ||
	    slot > 0x7ffffffeu || (o = (const ZLuaObjectUserData *)env->slot_ud[slot]) == NULL ||
	    o->gen != gen)
		return NULL;
	return o;
}

/* zlua_jit_call*'s work for n arguments in v; spec is tid << 4 | the
 * boolean argument bits. */
static inline int leaf_call(zlua_env *env, const void *p, uint32_t spec, uint32_t fnid, int n,
			    const double *v)
{
	zlua_leafcall *lf = &env->leaf;
	const ZLuaObjectUserData *u = (const ZLuaObjectUserData *)p;
	zlua_frame *fr = &lf->fr;
	int bools = (int)(spec & 15);
	int i, st, own;
	/* The length first: a script can give a smaller userdata (newproxy's
	 * empty one) the closure's __metatable string, and nothing of its
	 * payload may be read before we know it has 32 bytes. The length
	 * sits in LuaJIT's header just before the payload (zlua_jit_udlenoff). */
	if (lf->open || u == NULL || zlua_jit_udlen(env, p) != sizeof(ZLuaObjectUserData) ||
	    u->header.magic != ZLUA_MAGIC ||
	    u->header.kind != ZLUA_KIND_BYOBJ || u->header.type_id != spec >> 4 ||
	    (u->header.flags & ZLUA_F_RELEASED) || !zlua_ownaddr(env, u))
		return 0;
	/* the frame the trampoline builds: the receiver checked, the
	 * arguments read; L is only there for Go paths a leaf call never
	 * takes (Go refuses what would need it) */
	fr->L = env->L;
	fr->caller = env->L; /* what Go's panic path restores (as run_call's) */
	fr->tid = zlua_tid();
	fr->nargs = n + 1;
	fr->fnid = fnid;
	fr->goid = env->goid;
	fr->intok = 0;
	fr->args[0].type = LUA_TUSERDATA;
	fr->args[0].isint = 1;
	fr->args[0].len = 0;
	fr->args[0].v.p = (zlua_udheader *)&u->header;
	for (i = 0; i < n; i++) {
		zlua_arg *x = &fr->args[i + 1];
		x->isint = 0;
		x->len = 0;
		if (bools & (1 << i)) {
			x->type = LUA_TBOOLEAN;
			x->v.i = 0;
			x->v.b = v[i] != 0;
		} else {
			x->type = LUA_TNUMBER;
			x->v.n = v[i];
		}
	}
	own = zlua_owner_begin(env, fr->tid);
	st = zluaLeafCall(env->goid, fnid, fr);
	zlua_owner_end(env, own);
	if (st == ZLUA_LEAF_REFUSED)
		return 0;
	zlua_count_call(env);
	switch (st) {
	case ZLUA_RET0:
		return 1;
	case ZLUA_RETINT:
		lf->r[0] = (double)fr->ret.v.i;
		lf->nres = 1;
		lf->open = 1;
		return 1;
	case ZLUA_RET1:
		if (!leaf_num(&fr->ret, &lf->r[0]))
			break;
		lf->nres = 1;
		lf->open = 1;
		return 1;
	case ZLUA_RET2:
		if (!leaf_num(&fr->ret, &lf->r[0]) || !leaf_num(&fr->ret2, &lf->r[1]))
			break;
		lf->nres = 2;
		lf->open = 1;
		return 1;
	case ZLUA_RETOBJ:
		/* An object whose keyed userdata lives (slot_ud names it) is
		 * most likely in the identity cache, where the closure looks;
		 * zlua_jit_obj checks what it finds there, and anything else
		 * is pushed by zlua_jit_finish, as the trampoline would. */
		if (leaf_live_obj(env, &fr->ret) != NULL) {
			leaf_keep(env, lf, st);
			return -1 - (int)(uint32_t)fr->ret.v.i;
		}
		break;
	}
	leaf_keep(env, lf, st);
	return 2;
}

int zlua_jit_obj(void *envp, const void *u)
{
	zlua_env *env = (zlua_env *)envp;
	zlua_leafcall *lf = &env->leaf;
	if (lf->open != 2 || lf->st != ZLUA_RETOBJ || u == NULL || leaf_live_obj(env, &lf->fr.ret) != u)
		return 0;
	/* as cache_find's hit (objects.c): the calls and comparisons a script
	 * makes on the object it just received find it proved */
	zlua_prove(env, u);
	lf->open = 0;
	env->raise_slot = lf->raise_slot;
	env->raise_seq = lf->raise_seq;
	return 1;
}

int zlua_jit_call0(void *env, const void *p, uint32_t spec, uint32_t fnid)
{
	return leaf_call((zlua_env *)env, p, spec, fnid, 0, NULL);
}

int zlua_jit_call1(void *env, const void *p, uint32_t spec, uint32_t fnid, double a)
{
	return leaf_call((zlua_env *)env, p, spec, fnid, 1, &a);
}

int zlua_jit_call2(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b)
{
	double v[2] = {a, b};
	return leaf_call((zlua_env *)env, p, spec, fnid, 2, v);
}

int zlua_jit_call3(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b,
		   double c)
{
	double v[3] = {a, b, c};
	return leaf_call((zlua_env *)env, p, spec, fnid, 3, v);
}

int zlua_jit_call4(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b,
		   double c, double d)
{
	double v[4] = {a, b, c, d};
	return leaf_call((zlua_env *)env, p, spec, fnid, 4, v);
}

double zlua_jit_res(void *envp, int i)
{
	zlua_leafcall *lf = &((zlua_env *)envp)->leaf;
	if (lf->open != 1 || i < 0 || i >= lf->nres)
		return NAN;
	if (i == lf->nres - 1)
		lf->open = 0;
	return lf->r[i];
}

int zlua_jit_finish(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	zlua_leafcall *lf;
	if (env == NULL || (lf = &env->leaf)->open != 2)
		return 0;
	lf->open = 0;
	if (lf->nomem || !zlua_prog_reserve(env, lf->prog_len))
		return luaL_error(L, "not enough memory");
	if (lf->prog_len > 0)
		memcpy(env->prog, lf->prog, lf->prog_len);
	env->prog_len = lf->prog_len;
	env->raise_slot = lf->raise_slot;
	env->raise_seq = lf->raise_seq;
	return zlua_gate_finish(L, env, &lf->fr, lf->st);
}

/* [lua] Finds env->ud_lenoff, once: the offset before a full userdata's payload,
 * inside LuaJIT's userdata header (ud_off bytes, measured by
 * zlua_ownaddr_init), of the 32-bit word that holds the payload's length
 * for userdata of three sizes (0, as newproxy's, 32, as a ByObj's, and
 * 77). Left 0 when no word does: then no FFI field closures and no leaf
 * closures. The header is the userdata's own memory, so the FFI calls
 * read nothing outside the object (lua_objlen is no option there: no Lua
 * API inside an FFI call). Allocates (may raise, in the caller's
 * protected operation). [-0, +0] */
void zlua_jit_udlenoff(lua_State *L, zlua_env *env)
{
	static const size_t sizes[3] = {0, sizeof(ZLuaObjectUserData), 77};
	const unsigned char *p[3];
	size_t off;
	int i;
	if (env->ud_lenoff != 0)
		return;
	for (i = 0; i < 3; i++)
		p[i] = (const unsigned char *)lua_newuserdata(L, sizes[i]);
	for (off = 4; off <= env->ud_off && env->ud_lenoff == 0; off += 4) {
		for (i = 0; i < 3; i++) {
			uint32_t n;
			memcpy(&n, p[i] - off, sizeof n);
			if (n != sizes[i])
				break;
		}
		if (i == 3)
			env->ud_lenoff = off;
	}
	lua_pop(L, 3);
}

/* [lua] Makes the closure maker (leaf_chunk's) into env->leafmk_ref; false
 * without the FFI path's needs (as jitindex.c's). [-0, +0] */
static int leaf_maker(lua_State *L, zlua_env *env)
{
	char src[8192];
	size_t n;
	if (env->leafmk_ref > 0)
		return 1;
	if (env->ffi_ref == LUA_NOREF || env->ud_block == 0 || env->limflag_ref == LUA_NOREF ||
	    env->leafbase_ref <= 0)
		return 0;
	if (env->ud_lenoff == 0)
		zlua_jit_udlenoff(L, env);
	if (env->ud_lenoff == 0)
		return 0; /* the receiver's length cannot be checked */
	if (zlua_rawgeti_type(L, LUA_REGISTRYINDEX, env->leafbase_ref) != LUA_TTABLE) {
		lua_pop(L, 1); /* replaced through debug.getregistry: no leaf closures */
		return 0;
	}
	n = leaf_chunk(src, sizeof src);
	if (n >= sizeof src)
		return luaL_error(L, "zlua: leaf closure chunk too long");
	if (luaL_loadbuffer(L, src, n, ZLUA_INDEX_CHUNK) != 0)
		lua_error(L);
	lua_rawgeti(L, -2, 1); /* type */
	lua_rawgeti(L, -3, 2); /* getmetatable */
	lua_remove(L, -4);     /* the table */
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->ffi_ref);
	lua_pushlightuserdata(L, env);
	lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_res);
	lua_pushcfunction(L, zlua_jit_finish);
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->limflag_ref);
	/* the identity cache the object results are found in (a script that
	 * replaces the registry's entry leaves the closures this table, whose
	 * entries zlua_jit_obj checks; no table: finish pushes them all) */
	if (zlua_rawgeti_type(L, LUA_REGISTRYINDEX, env->cache_ref) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
	}
	lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_obj);
	lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_call0);
	lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_call1);
	lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_call2);
	lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_call3);
	lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_call4);
	lua_call(L, 14, 1);
	env->leafmk_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	return env->leafmk_ref > 0;
}

static uint32_t get_u32le(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

size_t zlua_jit_leaf(lua_State *L, zlua_env *env, const unsigned char *p)
{
	/* the maker's chunk and its 14 arguments (and the table of the
	 * first two), or the maker and its 7 */
	luaL_checkstack(L, 17, "zlua: too many values");
	if (!leaf_maker(L, env))
		return 12;
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->leafmk_ref);
	lua_insert(L, -2);
	lua_pushnumber(L, (lua_Number)get_u32le(p));
	lua_pushnumber(L, (lua_Number)get_u32le(p + 4));
	lua_pushnumber(L, p[8]);
	lua_pushnumber(L, p[9]);
	lua_pushnumber(L, p[10]);
	lua_pushnumber(L, p[11]);
	lua_call(L, 7, 1);
	return 12;
}

void zlua_jit_leafreset(zlua_env *env)
{
	env->leaf.open = 0;
}

unsigned char *zlua_jit_emptyud(const zlua_env *env)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *m;
	if (env->ud_lenoff == 0 || page <= 0 || env->ud_lenoff > (size_t)page)
		return NULL;
	m = (unsigned char *)mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (mprotect(m + page, (size_t)page, PROT_NONE) != 0) {
		munmap(m, (size_t)page * 2);
		return NULL;
	}
	/* the payload at the page's end, its length word 0 before it */
	memset(m + page - env->ud_lenoff, 0, sizeof(uint32_t));
	return m + page;
}

void zlua_jit_emptyud_free(unsigned char *p)
{
	long page = sysconf(_SC_PAGESIZE);
	munmap(p - page, (size_t)page * 2);
}

int zlua_jit_leaf_emptyprobe(zlua_env *env)
{
	unsigned char *p = zlua_jit_emptyud(env);
	int st;
	if (p == NULL)
		return -1;
	st = leaf_call(env, p, 0, 1, 0, NULL);
	zlua_jit_emptyud_free(p);
	return st;
}

#else

size_t zlua_jit_leaf(lua_State *L, zlua_env *env, const unsigned char *p)
{
	(void)L;
	(void)env;
	(void)p;
	return 12;
}

void zlua_jit_leafreset(zlua_env *env)
{
	(void)env;
}

int zlua_jit_leaf_emptyprobe(zlua_env *env)
{
	(void)env;
	return -1;
}

#endif
