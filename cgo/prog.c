/* prog.c: the push-program interpreter: what Go leaves in env->prog
 * (values, tables, Go functions and objects) pushed on a Lua stack, shared
 * by the trampoline's results and the protected operations. */
#include "zlua.h"

/* Reads a little-endian u32 operand of a push program (unaligned). */
static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* [lua] Pushes a Go function closure: a sentinel userdata whose __gc
 * releases fnid, as upvalue 1 of the trampoline (a fast id's own, which
 * reads env->fastfn instead of the sentinel). [-0, +1] */
static void push_gofunc(lua_State *L, zlua_env *env, uint32_t fnid, uint32_t hints)
{
	zlua_funcud *fu = (zlua_funcud *)zlua_newuserdata(L, sizeof *fu);
	memset(fu, 0, sizeof *fu);
	fu->header.magic = ZLUA_MAGIC;
	fu->header.kind = ZLUA_KIND_FUNC;
	fu->env = env;
	fu->fnid = fnid;
	fu->hints = hints;
	zlua_push_regtable(L, env->funcmt_ref);
	lua_setmetatable(L, -2);
	env->armed[fnid] = 1; /* from here on __gc owns the id */
	if (fnid < env->fastfn_cap) {
		zlua_fastfn *f = &env->fastfn[fnid];
		f->hints = hints;
		f->flags = 0;
		lua_pushcclosure(L, zlua_fast_tramp(fnid), 1);
		return;
	}
	lua_pushcclosure(L, zlua_trampoline, 1);
}

int zlua_prog_run(lua_State *L, zlua_env *env, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;
	int base = lua_gettop(L);
	/* while it runs, objects it pushes later are slots Go handed it:
	 * Go keeps them (cgo State.Pushing); a raise leaves the count up
	 * until the outermost operation ends (protect.c) */
	env->prog_active++;
	while (p < end) {
		int op = *p++;
		luaL_checkstack(L, 3, "zlua: too many values");
		if (zlua_push_scalar_op(L, op, &p))
			continue;
		switch (op) {
		case ZLUA_OP_STR: {
			uint32_t len = get_u32(p);
			p += 4;
			lua_pushlstring(L, (const char *)p, len);
			p += len;
			break;
		}
		case ZLUA_OP_NEWTABLE:
			lua_createtable(L, (int)get_u32(p), (int)get_u32(p + 4));
			p += 8;
			break;
		case ZLUA_OP_RAWSET:
			lua_rawset(L, -3);
			break;
		case ZLUA_OP_GOFUNC:
			push_gofunc(L, env, get_u32(p), get_u32(p + 4));
			p += 8;
			break;
		case ZLUA_OP_OBJ:
			zlua_obj_push(L, env, get_u32(p), get_u32(p + 4), get_u32(p + 8),
				      (int)(int32_t)get_u32(p + 12), p[16]);
			p += 17;
			break;
		case ZLUA_OP_NEWMT:
			zlua_obj_newmt(L, env);
			break;
		case ZLUA_OP_INDEXER:
			zlua_obj_indexer(L, env);
			lua_setfield(L, -2, "__index");
			break;
		case ZLUA_OP_OBJFIELDS:
			zlua_obj_fields(L, env);
			break;
		case ZLUA_OP_PLAININDEX:
			zlua_obj_plainindex(L, env);
			break;
		case ZLUA_OP_EQWRAP:
			lua_pushcclosure(L, zlua_obj_eq, 1);
#ifdef ZLUA_LUAJIT
			/* compiled: keyed objects are compared through the FFI */
			if (env->jiteq_ref != LUA_NOREF) {
				lua_rawgeti(L, LUA_REGISTRYINDEX, env->jiteq_ref);
				lua_insert(L, -2);
				lua_call(L, 1, 1);
			}
#endif
			break;
		case ZLUA_OP_BYVAL:
			p += zlua_sv_push(L, env, p);
			break;
		case ZLUA_OP_SVCHARGE:
			p += zlua_sv_charge(L, env, p);
			break;
		case ZLUA_OP_OBJCHARGE:
			p += zlua_obj_charge(L, env, p);
			break;
		case ZLUA_OP_OBJPTR:
			p += zlua_obj_setptr(L, p);
			break;
		case ZLUA_OP_NOMEM:
			zlua_raise_nomem(L, env);
			break;
		case ZLUA_OP_SVNOADDR:
			zlua_sv_noaddr(L, env);
			break;
		case ZLUA_OP_SVMT:
			zlua_sv_newmt(L, env, *p++);
			break;
		case ZLUA_OP_SVINDEX:
			zlua_sv_indexer(L, env);
			break;
		case ZLUA_OP_LEAF:
			p += zlua_jit_leaf(L, env, p);
			break;
		case ZLUA_OP_LIGHTUD: {
			uint64_t h;
			memcpy(&h, p, sizeof h);
			p += sizeof h;
			lua_pushlightuserdata(L, (void *)(uintptr_t)h);
			break;
		}
		default:
			return luaL_error(L, "zlua: corrupt push program (op %d)", op);
		}
	}
	env->prog_active--;
	return lua_gettop(L) - base;
}

int zlua_prog_run_env(lua_State *L, zlua_env *env)
{
	size_t n = env->prog_len;
	env->prog_len = 0;
	if (n <= ZLUA_PROG_INLINE) {
		unsigned char buf[ZLUA_PROG_INLINE];
		memcpy(buf, env->prog, n);
		return zlua_prog_run(L, env, buf, n);
	} else {
		/* On the inflight list until the run ends; a raise leaves it there
		 * for zlua_reclaim. */
		zlua_inflight *f = (zlua_inflight *)malloc(sizeof *f + n);
		int k;
		if (f == NULL)
			return luaL_error(L, "not enough memory");
		memcpy(f->data, env->prog, n);
		f->len = n;
		f->prev = NULL;
		f->next = env->inflight;
		if (f->next != NULL)
			f->next->prev = f;
		env->inflight = f;
		k = zlua_prog_run(L, env, f->data, n);
		if (f->prev != NULL)
			f->prev->next = f->next;
		else
			env->inflight = f->next;
		if (f->next != NULL)
			f->next->prev = f->prev;
		free(f);
		return k;
	}
}
