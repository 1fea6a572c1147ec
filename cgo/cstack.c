/* cstack.c: the C stack bound of LuaJIT's library recursion, in every call.
 * Lua 5.4 counts C calls and raises "C stack overflow" at 200 of them;
 * LuaJIT does not, so a script whose recursion passes through a library
 * function that runs Lua on the C stack (coroutine.resume, coroutine.wrap's
 * function, load with a reader, table.sort with a comparator, require and
 * its loaders, print calling tostring, zlua's gsub calling a function)
 * exhausts the thread's C stack and the process dies with SIGSEGV: a chain
 * of coroutines each resuming the next does it in ten lines (os.time with a
 * table whose __index calls os.time does it on a 512 KiB thread stack). The hook's
 * check (hook.c) only runs in limited calls. Here those library functions
 * are replaced, on LuaJIT only, by Lua closures that ask zlua_cstack_over
 * first and then tail-call the original with the caller's own arguments:
 * same results, errors, messages (after the tail call the script's frame
 * is the caller) and yields; only `debug.getinfo(f).what` and
 * `tostring(f)` show a Lua function. zlua's own gsub asks in C
 * (pattern_lib.c). Functions the JIT compiles (string.format) are left
 * alone: their recursion through __tostring ends at LuaJIT's Lua stack
 * limit ("stack overflow") first on an 8 MiB thread stack (ARCHITECTURE,
 * Depth). */
#define _GNU_SOURCE /* pthread_getattr_np */
#include "zlua.h"
#include <pthread.h>

/* The running thread's C stack: its lowest address and size
 * (pthread_getattr_np), found once per thread; 0 when unknown. */
static __thread uintptr_t cstack_lo;
static __thread size_t cstack_size;
static __thread int cstack_known;

static void thread_stack(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	cstack_known = 1;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			cstack_lo = (uintptr_t)addr;
			cstack_size = size;
		}
		pthread_attr_destroy(&attr);
	}
}

/* The lowest address an entry from Go into Lua may start at: an eighth
 * of the thread's stack above its end, at most 1 MiB and at least 256
 * KiB (or half of a stack smaller than 512 KiB). Below it, what one entry
 * may use before the next entry's check (Lua 5.4 nests 200 C calls, its
 * parser 200 levels; LuaJIT's library recursion stops at its own reserve)
 * could pass the end. 0 until found; 1 when the stack is unknown (no
 * address is below it). */
__thread uintptr_t zlua_entry_floor __attribute__((tls_model("initial-exec")));

int zlua_cstack_low_first(void)
{
	if (!cstack_known)
		thread_stack();
	zlua_entry_floor = 1;
	if (cstack_size != 0) {
		size_t r = cstack_size / 8;
		if (r > ZLUA_ENTRY_RESERVE_MAX)
			r = ZLUA_ENTRY_RESERVE_MAX;
		if (r < ZLUA_CSTACK_RESERVE)
			r = cstack_size / 2 < ZLUA_CSTACK_RESERVE ? cstack_size / 2 : ZLUA_CSTACK_RESERVE;
		zlua_entry_floor = cstack_lo + r;
	}
	return (uintptr_t)__builtin_frame_address(0) < zlua_entry_floor;
}

#ifdef ZLUA_LUAJIT

/* The longest table a limited sort without comparator sorts with the
 * stock compare (bigsort): a crafted order of so few long strings still
 * compares in milliseconds. */
#define ZLUA_SORT_STOCK 16

/* The lowest address a thread's C stack may reach before zlua_cstack_over
 * says so: its end plus ZLUA_CSTACK_RESERVE; 0 when unknown (then only
 * the base rule applies). */
static uintptr_t thread_floor(void)
{
	if (!cstack_known)
		thread_stack();
	return cstack_size > ZLUA_CSTACK_RESERVE ? cstack_lo + ZLUA_CSTACK_RESERVE : 0;
}

int zlua_cstack_over(zlua_env *env)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	if (env->cstack_base > sp && env->cstack_base - sp > ZLUA_CSTACK_LIMIT)
		return 1;
	return sp < thread_floor();
}

/* [lua] deep(): whether the C stack is too deep for one more level of
 * library recursion (zlua_cstack_over). [-0, +1] */
static int deep(lua_State *L)
{
	lua_pushboolean(L, zlua_cstack_over(zlua_envof(L)));
	return 1;
}

/* [lua] Whether table.sort's arguments (on the stack) are a table of
 * more than ZLUA_SORT_STOCK elements without a comparator, inside a
 * limited call where the script has no hook of its own: LuaJIT's sort is
 * a median-of-three quicksort without a random pivot, so a crafted order
 * makes it quadratic (40,000 numbers: 9 s; 4,000 strings sharing a 16 KB
 * prefix: 13 s), and without a comparator it runs no instruction and
 * makes no call the deadline could stop. The wrapper then gives it
 * sort_lt, whose calls the hurried hook's call events stop. Tiny tables,
 * calls outside limited calls and scripts that set a hook (whose events
 * sort_lt's calls would change) keep the stock compare. [-0, +1] */
static int bigsort(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	zlua_hookrec *rec;
	int big = lua_gettop(L) >= 1 && lua_gettop(L) <= 2 && lua_isnoneornil(L, 2) &&
		  lua_type(L, 1) == LUA_TTABLE && env->limit_depth > 0 &&
		  lua_objlen(L, 1) > ZLUA_SORT_STOCK;
	if (big && (rec = zlua_hookrec_of(L, env, 0, 0)) != NULL && rec->mask != 0)
		big = 0; /* the script's hook would see sort_lt's calls */
	lua_pushboolean(L, big);
	return 1;
}

/* [lua] The comparator bigsort's sorts get: the stock default, a < b
 * (its errors, for values that do not compare, are the stock ones).
 * [-0, +1] */
static int sort_lt(lua_State *L)
{
	lua_pushboolean(L, lua_lessthan(L, 1, 2));
	return 1;
}

/* Each wrapper errs the way its original reports failure: resume and load
 * return false/nil and the message, wrap's function raises it at its
 * caller's line (as Lua 5.4's does), the others raise it without a
 * position (as Lua 5.4's C stack check does).
 *
 * load with a reader function: LuaJIT runs the reader inside a C
 * protected call, and an error a hook raised in it (zlua's interruption)
 * unwinds to that call without clearing the "hook active" flag: load
 * returned nil and the message, and every hook of the state stayed off
 * for good, the limit's included (an outside probe: the loop after such a
 * load ran forever). A pcall does not clear the flag (with it set, LuaJIT
 * marks the pcall's frame as one inside a hook); an error ending a
 * coroutine does (lua_resume's unwinding). So after a failed load of a
 * reader the wrapper resumes a coroutine of error (the original
 * functions). That call is not a tail call, so a message load positions
 * at its caller names this chunk: the prefix is replaced by the position
 * of the wrapper's caller, as stock load positions it (error at level 3
 * through pcall: pcall, the wrapper, its caller). */
static const char wrap_src[] =
	"local deep, co, tbl, G, bigsort, lt = ...\n"
	"local error, type = error, type\n"
	"local msg = 'C stack overflow'\n"
	"local cocreate, coresume = co and co.create, co and co.resume\n"
	"if co then\n"
	"  local resume, wrap = co.resume, co.wrap\n"
	"  if resume then co.resume = function(...)\n"
	"    if deep() then return false, msg end\n"
	"    return resume(...)\n"
	"  end end\n"
	"  if wrap then co.wrap = function(...)\n"
	"    local f = ...\n"
	"    if type(f) ~= 'function' then return wrap(...) end\n"
	"    local w = wrap(f)\n"
	"    return function(...)\n"
	"      if deep() then error(msg, 2) end\n"
	"      return w(...)\n"
	"    end\n"
	"  end end\n"
	"end\n"
	"if tbl and tbl.sort then local sort = tbl.sort tbl.sort = function(...)\n"
	"  if deep() then error(msg, 0) end\n"
	"  if bigsort(...) then return sort((...), lt) end\n"
	"  return sort(...)\n"
	"end end\n"
	"local function raising(name)\n"
	"  local f = G[name]\n"
	"  if f then G[name] = function(...)\n"
	"    if deep() then error(msg, 0) end\n"
	"    return f(...)\n"
	"  end end\n"
	"end\n"
	"raising('require') raising('print') raising('dofile')\n"
	"local os = G.os\n"
	"if type(os) == 'table' and os.time then local time = os.time os.time = function(...)\n"
	"  if deep() then error(msg, 0) end\n"
	"  return time(...)\n"
	"end end\n"
	"local load, loadstring, pcall = G.load, G.loadstring, G.pcall\n"
	"local gsub = type(G.string) == 'table' and G.string.gsub\n"
	"local function returning(load)\n"
	"  return function(...)\n"
	"    if deep() then return nil, msg end\n"
	"    if type((...)) ~= 'function' or not (pcall and cocreate and coresume and gsub) then return load(...) end\n"
	"    local f, err = load(...)\n"
	"    if f ~= nil then return f end\n"
	"    local ok, th = pcall(cocreate, error)\n"
	"    if ok then coresume(th) end\n"
	"    if type(err) == 'string' then\n"
	"      local short = gsub(err, '^zlua%.cstack:%d+: ', '')\n"
	"      if short ~= err then\n"
	"        local _, where = pcall(error, '', 3)\n"
	"        err = (type(where) == 'string' and where or '') .. short\n"
	"      end\n"
	"    end\n"
	"    return nil, err\n"
	"  end\n"
	"end\n"
	"if load then G.load = returning(load) end\n"
	"if loadstring == load then G.loadstring = G.load\n"
	"elseif loadstring then G.loadstring = returning(loadstring) end\n";

void zlua_open_cstack(lua_State *L, zlua_env *env)
{
	/* the functions the wrappers call for the script (debughook.c) */
	lua_getglobal(L, "coroutine");
	if (lua_type(L, -1) == LUA_TTABLE) {
		lua_getfield(L, -1, "wrap");
		zlua_jit_hook_fn(L, env, ZLUA_HOOKFN_WRAP);
		lua_pop(L, 1);
	}
	lua_getglobal(L, "load");
	zlua_jit_hook_fn(L, env, ZLUA_HOOKFN_LOAD);
	lua_getglobal(L, "loadstring");
	zlua_jit_hook_fn(L, env, ZLUA_HOOKFN_LOADSTRING);
	lua_pop(L, 3);
	if (zlua_load_own(L, wrap_src, sizeof wrap_src - 1, "=zlua.cstack") != LUA_OK)
		lua_error(L);
	lua_pushcfunction(L, deep);
	lua_getglobal(L, "coroutine");
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_pushnil(L);
	}
	lua_getglobal(L, "table");
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_pushnil(L);
	}
	zlua_pushglobaltable(L);
	lua_pushcfunction(L, bigsort);
	lua_pushcfunction(L, sort_lt);
	lua_call(L, 6, 0);
}
#endif

/* A test hook (zlua_run_on_stack): Go code run on a C thread of a chosen
 * stack size, as a host whose threads have small stacks (or a process
 * started under `ulimit -s 512`) runs it. Go enters through an exported
 * function, so the cgo call of zlua_run_on_stack must allow callbacks. */

extern void zluaSmallStackRun(uintptr_t h);

static void *small_stack_main(void *h)
{
	zluaSmallStackRun((uintptr_t)h);
	return NULL;
}

int zlua_run_on_stack(uintptr_t h, size_t size)
{
	pthread_t t;
	pthread_attr_t a;
	int rc;
	if ((rc = pthread_attr_init(&a)) != 0)
		return rc;
	rc = pthread_attr_setstacksize(&a, size);
	if (rc == 0)
		rc = pthread_create(&t, &a, small_stack_main, (void *)h);
	pthread_attr_destroy(&a);
	return rc != 0 ? rc : pthread_join(t, NULL);
}

#ifndef ZLUA_LUAJIT
int zlua_cstack_over(zlua_env *env)
{
	(void)env;
	return 0;
}

void zlua_open_cstack(lua_State *L, zlua_env *env)
{
	(void)L;
	(void)env;
}
#endif
