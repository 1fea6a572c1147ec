/* chunkcache.c: zlua's own Lua chunks (the prelude, the xpcall guard, the
 * iterators, the module searcher...) compiled once per process. Parsing
 * them was about 40 % of a Lua 5.4 Env's New: the first state to load a
 * chunk compiles its source and keeps the bytecode lua_dump writes (debug
 * information kept: the same chunk name and lines in errors and
 * tracebacks); every later state loads that bytecode. Only chunks zlua
 * wrote go through here, never a script's: the cache holds a few KB, and
 * binary chunks are loaded only from bytes this process's Lua wrote. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "zlua.h"

/* At most CACHED chunks are kept; later ones are compiled every time. */
#define CACHED 32

typedef struct cached_chunk {
	char *src; /* a copy of the source: the key, with name */
	size_t len;
	char *name;
	unsigned char *code; /* what lua_dump wrote */
	size_t code_len;
} cached_chunk;

/* Published entries are never changed or freed: a reader may use one
 * after letting go of the lock. */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cached_chunk cache[CACHED];
static int ncached;

/* The bytecode growing under lua_dump (malloc'd, not Lua's heap). */
typedef struct dump_buf {
	unsigned char *p;
	size_t len, cap;
	int failed;
} dump_buf;

/* lua_dump's writer. No Lua API call. */
static int dump_write(lua_State *L, const void *p, size_t n, void *ud)
{
	dump_buf *b = (dump_buf *)ud;
	(void)L;
	if (b->failed)
		return 1;
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 1024;
		unsigned char *q;
		while (cap - b->len < n)
			cap *= 2;
		q = (unsigned char *)realloc(b->p, cap);
		if (q == NULL) {
			b->failed = 1;
			return 1;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* The entry for src and name, or NULL; under cache_mu. */
static const cached_chunk *lookup(const char *src, size_t len, const char *name)
{
	int i;
	for (i = 0; i < ncached; i++)
		if (cache[i].len == len && strcmp(cache[i].name, name) == 0 &&
		    memcmp(cache[i].src, src, len) == 0)
			return &cache[i];
	return NULL;
}

/* The cached entry for src and name, or NULL. */
static const cached_chunk *find(const char *src, size_t len, const char *name)
{
	const cached_chunk *c;
	pthread_mutex_lock(&cache_mu);
	c = lookup(src, len, name);
	pthread_mutex_unlock(&cache_mu);
	return c;
}

/* Keeps the function on top of L's stack, compiled from src, for the next
 * states; on any failure nothing is kept (they compile it again). */
static void keep(lua_State *L, const char *src, size_t len, const char *name)
{
	dump_buf b = {NULL, 0, 0, 0};
	cached_chunk c;
	int kept = 0;
	size_t nlen = strlen(name);
	int top = lua_gettop(L), st;
#ifdef ZLUA_LUAJIT
	/* LuaJIT writes through a buffer on its heap, in a protected call: a
	 * memory error comes back as a status, its message on the stack */
	st = lua_dump(L, dump_write, &b);
#else
	st = lua_dump(L, dump_write, &b, 0);
#endif
	lua_settop(L, top);
	if (st != 0 || b.failed) {
		free(b.p);
		return;
	}
	c.src = (char *)malloc(len ? len : 1);
	c.name = (char *)malloc(nlen + 1);
	if (c.src == NULL || c.name == NULL) {
		free(c.src);
		free(c.name);
		free(b.p);
		return;
	}
	memcpy(c.src, src, len);
	memcpy(c.name, name, nlen + 1);
	c.len = len;
	c.code = b.p;
	c.code_len = b.len;
	pthread_mutex_lock(&cache_mu);
	if (ncached < CACHED && lookup(src, len, name) == NULL) { /* else kept meanwhile */
		cache[ncached++] = c;
		kept = 1;
	}
	pthread_mutex_unlock(&cache_mu);
	if (!kept) {
		free(c.src);
		free(c.name);
		free(c.code);
	}
}

int zlua_load_own(lua_State *L, const char *src, size_t len, const char *name)
{
	const cached_chunk *c = find(src, len, name);
	int st;
	if (c != NULL)
		return luaL_loadbufferx(L, (const char *)c->code, c->code_len, name, "b");
	st = luaL_loadbufferx(L, src, len, name, "t");
	if (st == LUA_OK)
		keep(L, src, len, name);
	return st;
}

int zlua_own_chunks(void)
{
	int n;
	pthread_mutex_lock(&cache_mu);
	n = ncached;
	pthread_mutex_unlock(&cache_mu);
	return n;
}
