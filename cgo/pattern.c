/* pattern.c: the pattern matcher behind zlua's string.find, match, gmatch
 * and gsub (pattern_lib.c). Written for zlua from the manual's definition
 * of patterns; the order in which it tries alternatives, and so its
 * results, its errors and the point where each error is raised, are those
 * of the backend's own library, as the differential tests check. What
 * differs is how it runs: no C recursion (an explicit stack of
 * backtracking frames, bounded by the stock nesting limit), and a work
 * budget whose exhaustion checks the interrupt flag of limited calls. */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include "pattern.h"

#define uchar(c) ((unsigned char)(c))
/* The per-byte helpers sit in the matcher's inner loops. */
#define INLINE static inline __attribute__((always_inline))

/* Frame kinds (zlua_matcher.kinds, low 3 bits). */
enum { F_QUEST = 1, F_MAX, F_MIN, F_OPEN, F_CLOSE };

#ifdef ZLUA_LUAJIT
#define MSG_CAPINDEX "invalid capture index"
#define MSG_BALANCE "unbalanced pattern"
#else
#define MSG_BALANCE "malformed pattern (missing arguments to '%b')"
#endif

/* [lua] Raises a pattern error with the caller's position. [-0, +1, raises] */
static int pat_error(zlua_matcher *m, const char *msg)
{
	return luaL_error(m->L, "%s", msg);
}

/* [lua] Raises "invalid capture index", naming the index on Lua 5.4 (i
 * counts from 0). [-0, +1, raises] */
static int capindex_error(zlua_matcher *m, int i)
{
#ifdef ZLUA_LUAJIT
	(void)i;
	return pat_error(m, MSG_CAPINDEX);
#else
	return luaL_error(m->L, "invalid capture index %%%d", i + 1);
#endif
}

void zlua_pat_tick(zlua_matcher *m)
{
	m->budget = ZLUA_PAT_TICK;
	if (m->env == NULL) {
		void *ud;
		lua_getallocf(m->L, &ud);
		m->env = (zlua_env *)ud;
	}
	if (zlua_interrupted(m->env))
		zlua_raise_interrupt(m->L, m->env, 1);
}

/* Charges n units of work. */
#define SPEND(m, n)                          \
	do {                                 \
		(m)->budget -= (long)(n);    \
		if ((m)->budget < 0)         \
			zlua_pat_tick(m);    \
	} while (0)

/* Whether c belongs to class %cl (a letter; any other cl stands for
 * itself). Lua 5.4 asks <ctype.h>, so the C locale (os.setlocale) applies
 * as in the stock library; LuaJIT's classes are ASCII. */
INLINE int in_class(int c, int cl)
{
	int r;
	switch (cl | 0x20) {
#ifdef ZLUA_LUAJIT
	case 'a': r = (unsigned)((c | 0x20) - 'a') < 26; break;
	case 'c': r = c < 32 || c == 127; break;
	case 'd': r = (unsigned)(c - '0') < 10; break;
	case 'g': r = (unsigned)(c - 33) < 94; break;
	case 'l': r = (unsigned)(c - 'a') < 26; break;
	case 'p': r = (unsigned)(c - 33) < 94 && (unsigned)((c | 0x20) - 'a') >= 26 &&
		      (unsigned)(c - '0') >= 10; break;
	case 's': r = c == ' ' || (unsigned)(c - 9) < 5; break;
	case 'u': r = (unsigned)(c - 'A') < 26; break;
	case 'w': r = (unsigned)((c | 0x20) - 'a') < 26 || (unsigned)(c - '0') < 10; break;
	case 'x': r = (unsigned)(c - '0') < 10 || (unsigned)((c | 0x20) - 'a') < 6; break;
#else
	case 'a': r = isalpha(c); break;
	case 'c': r = iscntrl(c); break;
	case 'd': r = isdigit(c); break;
	case 'g': r = isgraph(c); break;
	case 'l': r = islower(c); break;
	case 'p': r = ispunct(c); break;
	case 's': r = isspace(c); break;
	case 'u': r = isupper(c); break;
	case 'w': r = isalnum(c); break;
	case 'x': r = isxdigit(c); break;
#endif
	case 'z': r = c == 0; break; /* deprecated, still in both */
	default: return cl == c;
	}
	return (cl & 0x20) ? r != 0 : r == 0; /* upper case: complement */
}

/* Whether c is in the set p..ec (p at '[', ec at its ']'). */
INLINE int in_set(int c, const char *p, const char *ec)
{
	int yes = 1;
	if (*++p == '^') {
		yes = 0;
		p++;
	}
	for (; p < ec; p++) {
		if (*p == '%') {
			if (in_class(c, uchar(*++p)))
				return yes;
		} else if (p[1] == '-' && p + 2 < ec) {
			if (uchar(p[0]) <= c && c <= uchar(p[2]))
				return yes;
			p += 2;
		} else if (uchar(*p) == c) {
			return yes;
		}
	}
	return !yes;
}

/* [lua] The end of the set at p (whose first member may be ']'). Raises
 * on a malformed one. [-0, +0] */
static const char *set_end(zlua_matcher *m, const char *p)
{
	const char *q = p + 1;
	if (*q == '^')
		q++;
	do {
		if (q == m->pat_end)
			pat_error(m, "malformed pattern (missing ']')");
		if (*q++ == '%' && q < m->pat_end)
			q++;
	} while (*q != ']');
	SPEND(m, q - p);
	return q + 1;
}

/* [lua] The end of the single-character class at p: one byte, an escape
 * or a set. Raises on a malformed one. [-0, +0] */
INLINE const char *class_end(zlua_matcher *m, const char *p)
{
	if (*p == '%') {
		if (p + 1 == m->pat_end)
			pat_error(m, "malformed pattern (ends with '%')");
		return p + 2;
	}
	return *p == '[' ? set_end(m, p) : p + 1;
}

/* [lua] Whether the subject byte at s matches the class p..ep (may tick).
 * [-0, +0] */
INLINE int single(zlua_matcher *m, const char *s, const char *p, const char *ep)
{
	if (s >= m->src_end)
		return 0;
	switch (*p) {
	case '.':
		return 1;
	case '%':
		return in_class(uchar(*s), uchar(p[1]));
	case '[':
		SPEND(m, ep - p);
		return in_set(uchar(*s), p, ep - 1);
	default:
		return *p == *s;
	}
}

/* [lua] The end of the longest run of bytes from s matching the class
 * p..ep (a greedy repetition). [-0, +0] */
static const char *run_end(zlua_matcher *m, const char *s, const char *p, const char *ep)
{
	const char *e = m->src_end;
	long b;
	if (*p == '.')
		return e;
	if (*p == '[') {
		while (single(m, s, p, ep))
			s++;
		return s;
	}
	b = m->budget;
	if (*p == '%') {
		int cl = uchar(p[1]);
		for (; s < e && in_class(uchar(*s), cl); s++)
			if (--b < 0) {
				zlua_pat_tick(m);
				b = m->budget;
			}
	} else {
		for (; s < e && *s == *p; s++)
			if (--b < 0) {
				zlua_pat_tick(m);
				b = m->budget;
			}
	}
	m->budget = b;
	return s;
}

/* [lua] %bxy at s (p after "%b"): the end of the balanced run, or NULL.
 * [-0, +0] */
static const char *balance(zlua_matcher *m, const char *s, const char *p)
{
	int open, close, depth = 1;
	if (p >= m->pat_end - 1)
		pat_error(m, MSG_BALANCE);
	if (s >= m->src_end || *s != *p)
		return NULL;
	open = *p;
	close = p[1];
	while (++s < m->src_end) {
		SPEND(m, 1);
		if (*s == close) {
			if (--depth == 0)
				return s + 1;
		} else if (*s == open) {
			depth++;
		}
	}
	return NULL;
}

/* [lua] %1-%9 at s: the text of an earlier closed capture again.
 * [-0, +0] */
static const char *backref(zlua_matcher *m, const char *s, int d)
{
	int i = d - '1';
	ptrdiff_t len;
	if (i < 0 || i >= m->level || m->cap[i].len == ZLUA_CAP_UNFINISHED)
		capindex_error(m, i);
	len = m->cap[i].len;
	if (len < 0 || m->src_end - s < len) /* a position capture never matches */
		return NULL;
	SPEND(m, len);
	return memcmp(m->cap[i].init, s, (size_t)len) == 0 ? s + len : NULL;
}

/* [lua] The innermost capture still open. [-0, +0] */
static int open_capture(zlua_matcher *m)
{
	int l;
	for (l = m->level - 1; l >= 0; l--)
		if (m->cap[l].len == ZLUA_CAP_UNFINISHED)
			return l;
	return pat_error(m, "invalid pattern capture");
}

/* Pushes a frame; beyond the stock nesting limit the pattern is too
 * complex. */
#define PUSH(kind, a, b, c, d)                                        \
	do {                                                          \
		if (top == m->nframes)                                \
			pat_error(m, "pattern too complex");          \
		m->kinds[top] = (unsigned char)(kind);                \
		m->frames[top].s = (a);                               \
		m->frames[top].t = (b);                               \
		m->frames[top].p = (c);                               \
		m->frames[top].ep = (d);                              \
		top++;                                                \
	} while (0)

/* [lua] Matches the pattern at s: its end, or NULL. The captures of a
 * match are in m->cap. Each pattern element either moves on (s and p
 * advance), fails (the latest frame decides what to try next), or pushes
 * a frame and tries its continuation first, as the stock matcher's
 * recursive calls do. [-0, +0] */
static const char *match_at(zlua_matcher *m, const char *s)
{
	const char *p = m->pat, *ep;
	zlua_patframe *f;
	int top = 0, l;
	m->level = 0;
next:
	if (--m->budget < 0)
		zlua_pat_tick(m);
	if (p == m->pat_end)
		return s;
	switch (*p) {
	case '(':
		if (m->level >= ZLUA_PAT_MAXCAP)
			pat_error(m, "too many captures");
		m->cap[m->level].init = s;
		if (p[1] == ')') {
			m->cap[m->level].len = ZLUA_CAP_POSITION;
			p += 2;
		} else {
			m->cap[m->level].len = ZLUA_CAP_UNFINISHED;
			p++;
		}
		m->level++;
		PUSH(F_OPEN, s, s, p, p);
		goto next;
	case ')':
		l = open_capture(m);
		m->cap[l].len = s - m->cap[l].init;
		p++;
		PUSH(F_CLOSE | l << 3, s, s, p, p);
		goto next;
	case '$':
		if (p + 1 != m->pat_end)
			break;
		if (s == m->src_end)
			return s;
		goto fail;
	case '%':
		switch (p[1]) {
		case 'b':
			s = balance(m, s, p + 2);
			if (s == NULL)
				goto fail;
			p += 4;
			goto next;
		case 'f':
			p += 2;
			if (*p != '[')
				pat_error(m, "missing '[' after '%f' in pattern");
			ep = class_end(m, p);
			SPEND(m, ep - p);
			if (in_set(s == m->src ? 0 : uchar(s[-1]), p, ep - 1) ||
			    !in_set(uchar(*s), p, ep - 1))
				goto fail;
			p = ep;
			goto next;
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			s = backref(m, s, uchar(p[1]));
			if (s == NULL)
				goto fail;
			p += 2;
			goto next;
		}
		break;
	}
	/* a single-character class, maybe quantified */
	ep = class_end(m, p);
#ifdef ZLUA_LUAJIT
	/* LuaJIT enters a level for '*' and '-' even when they match nothing */
	if (*ep == '*')
		goto star;
	if (*ep == '-')
		goto lazy;
#endif
	if (!single(m, s, p, ep)) {
		if (*ep == '*' || *ep == '?' || *ep == '-') {
			p = ep + 1;
			goto next;
		}
		goto fail;
	}
	switch (*ep) {
	case '?':
		PUSH(F_QUEST, s, s, p, ep);
		s++;
		p = ep + 1;
		goto next;
	case '+':
		s++;
		/* fall through */
	case '*':
#ifdef ZLUA_LUAJIT
	star:
#endif
		{
			const char *t = run_end(m, s, p, ep);
			PUSH(F_MAX, s, t, p, ep);
			s = t;
		}
		p = ep + 1;
		goto next;
	case '-':
#ifdef ZLUA_LUAJIT
	lazy:
#endif
		PUSH(F_MIN, s, s, p, ep);
		p = ep + 1;
		goto next;
	default:
		s++;
		p = ep;
		goto next;
	}

fail:
	while (top > 0) {
		f = &m->frames[top - 1];
		switch (m->kinds[top - 1] & 7) {
		case F_QUEST: /* the item matched nothing after all */
			s = f->s;
			p = f->ep + 1;
			top--;
			goto next;
		case F_MAX: /* one repetition fewer */
			if (f->t > f->s) {
				s = --f->t;
				p = f->ep + 1;
				goto next;
			}
			break;
		case F_MIN: /* one repetition more */
			if (single(m, f->s, f->p, f->ep)) {
				s = ++f->s;
				p = f->ep + 1;
				goto next;
			}
			break;
		case F_OPEN:
			m->level--;
			break;
		case F_CLOSE:
			m->cap[m->kinds[top - 1] >> 3].len = ZLUA_CAP_UNFINISHED;
			break;
		}
		top--;
	}
	return NULL;
}

/* The byte every match must start with, or -1: the first element, after
 * up to 8 opening parentheses, a literal byte or an escaped punctuation
 * character that is not optional. Skipping positions that lack it cannot
 * change results or errors: there the first element fails before anything
 * else is looked at. */
static int first_byte(const char *p, const char *pe)
{
	int opens = 0, c;
	while (p < pe && *p == '(' && opens++ < 8)
		p += p[1] == ')' ? 2 : 1;
	if (p >= pe || opens > 8)
		return -1;
	c = uchar(*p);
	if (c == '%') {
		c = uchar(p[1]);
		if (p + 1 >= pe || c >= 128 || !ispunct(c))
			return -1;
		p += 2;
	} else if (c == '(' || c == '[' || c == '.' || c == '$' || c == ')' || c == 0) {
		return -1;
	} else {
		p++;
	}
	return (*p == '*' || *p == '?' || *p == '-') ? -1 : c;
}

/* The pattern's length: LuaJIT's patterns end at their first '\0'. */
static size_t pat_len(const char *p, size_t lp)
{
#ifdef ZLUA_LUAJIT
	const char *z = (const char *)memchr(p, 0, lp);
	if (z != NULL)
		return (size_t)(z - p);
#else
	(void)p;
#endif
	return lp;
}

void zlua_pat_analyse(const char *p, size_t lp, zlua_patinfo *info)
{
	size_t i;
	int n = 1;
	lp = pat_len(p, lp);
	info->len = lp;
	for (i = 0; i < lp && n < ZLUA_PAT_LEVELS - 1; i++)
		switch (p[i]) {
		case '(': case ')': case '?': case '*': case '+': case '-':
			n++;
		}
	info->nframes = n;
	info->first = first_byte(p, p + lp);
}

/* [lua] memchr in windows, charging the work: the next c at or after s.
 * [-0, +0] */
static const char *skip_to(zlua_matcher *m, const char *s, int c)
{
	const size_t win = 1u << 16;
	while (s < m->src_end) {
		size_t n = (size_t)(m->src_end - s);
		const char *q;
		if (n > win)
			n = win;
		q = (const char *)memchr(s, c, n);
		SPEND(m, (q ? (size_t)(q - s) : n) >> 4);
		if (q != NULL)
			return q;
		s += n;
	}
	return NULL;
}

const char *zlua_pat_search(zlua_matcher *m, const char *s, int anchor,
			    const char *reject, const char **e)
{
	for (;;) {
		const char *r;
		if (m->first >= 0 && !anchor) {
			s = skip_to(m, s, m->first);
			if (s == NULL)
				return NULL;
		}
		r = match_at(m, s);
		if (r != NULL && r != reject) {
			*e = r;
			return s;
		}
		if (anchor || s >= m->src_end)
			return NULL;
		s++;
	}
}

ptrdiff_t zlua_pat_capture(zlua_matcher *m, int i, const char *s, const char *e,
			   const char **cap)
{
	if (i >= m->level) {
		if (i != 0)
			capindex_error(m, i);
		*cap = s;
		return e - s;
	}
	if (m->cap[i].len == ZLUA_CAP_UNFINISHED)
		pat_error(m, "unfinished capture");
	*cap = m->cap[i].init;
	return m->cap[i].len;
}

void zlua_pat_push_capture(zlua_matcher *m, int i, const char *s, const char *e)
{
	const char *cap;
	ptrdiff_t len = zlua_pat_capture(m, i, s, e, &cap);
	if (len == ZLUA_CAP_POSITION)
		lua_pushinteger(m->L, (lua_Integer)(cap - m->src) + 1);
	else
		lua_pushlstring(m->L, cap, (size_t)len);
}

int zlua_pat_push_captures(zlua_matcher *m, const char *s, const char *e)
{
	int i, n = (m->level == 0 && s != NULL) ? 1 : m->level;
	luaL_checkstack(m->L, n, "too many captures");
	for (i = 0; i < n; i++)
		zlua_pat_push_capture(m, i, s, e);
	return n;
}

const char *zlua_pat_plain(zlua_matcher *m, const char *s, size_t ls,
			   const char *p, size_t lp)
{
	const size_t win = 1u << 16;
	const char *end;
	if (lp == 0)
		return s;
	if (lp > ls)
		return NULL;
	end = s + (ls - lp) + 1; /* past the last possible start */
	if (lp <= 64) {
		int c = uchar(*p);
		while (s < end) {
			size_t n = (size_t)(end - s) < win ? (size_t)(end - s) : win;
			const char *q = (const char *)memchr(s, c, n);
			if (q == NULL) {
				SPEND(m, n >> 4);
				s += n;
				continue;
			}
			if (memcmp(q + 1, p + 1, lp - 1) == 0)
				return q;
			SPEND(m, 1 + (lp >> 3) + ((size_t)(q - s) >> 4));
			s = q + 1;
		}
		return NULL;
	}
	while (s < end) { /* windows of win starts, each scanned once */
		size_t n = (size_t)(end - s) < (lp > win ? lp : win) ? (size_t)(end - s) : (lp > win ? lp : win);
		const char *q = (const char *)memmem(s, n + lp - 1, p, lp);
		if (q != NULL)
			return q;
		SPEND(m, (n + lp) >> 4);
		s += n;
	}
	return NULL;
}
