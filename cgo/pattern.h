/* pattern.h: zlua's Lua pattern matcher, shared by pattern.c (the matcher)
 * and pattern_lib.c (string.find, match, gmatch, gsub). Private to those
 * two files: the interface Go and the rest of the C side see is in zlua.h.
 *
 * The matcher implements the pattern language of the manual (Lua 5.4
 * §6.4.1; LuaJIT: Lua 5.1 §5.4.1 plus %g and %f) with the results,
 * error messages and "pattern too complex" limit of the backend's own
 * library, but without C recursion: backtracking points live in an
 * explicit stack of at most ZLUA_PAT_LEVELS - 1 frames, and the work is
 * counted so that a limited call's deadline stops it. */
#ifndef ZLUA_PATTERN_H
#define ZLUA_PATTERN_H

#include "zlua.h"

/* Nesting the stock matchers allow (their recursion depth, MAXCCALLS on
 * Lua 5.4, LJ_MAX_XLEVEL on LuaJIT); one level more is "pattern too
 * complex". A level here is a backtracking frame. */
#define ZLUA_PAT_LEVELS 200
/* Captures per match (LUA_MAXCAPTURES of both backends). */
#define ZLUA_PAT_MAXCAP 32
/* Units of work (about one subject byte looked at) between two checks of
 * the interrupt flag. */
#define ZLUA_PAT_TICK 4096

#define ZLUA_CAP_UNFINISHED (-1)
#define ZLUA_CAP_POSITION (-2)

/* A backtracking point: a quantified item or capture whose continuation is
 * being tried, to resume when that continuation fails. */
typedef struct zlua_patframe {
	const char *s;  /* ?: where the item matched; *: shortest end; -: current end */
	const char *t;  /* *: current end (tried next) */
	const char *p;  /* the item */
	const char *ep; /* its quantifier */
} zlua_patframe;

typedef struct zlua_matcher {
	const char *src, *src_end; /* subject; *src_end is its terminating '\0' */
	const char *pat, *pat_end; /* pattern without its anchor; *pat_end == '\0' */
	lua_State *L;
	zlua_env *env;  /* found at the first tick (the allocator's ud) */
	long budget;    /* work left until the next interrupt check */
	int level;      /* captures open or closed */
	int nframes;    /* room in frames and kinds */
	int first;      /* byte every match starts with, or -1 */
	zlua_patframe *frames;
	unsigned char *kinds; /* frame kind | capture index << 3 */
	struct {
		const char *init;
		ptrdiff_t len; /* or ZLUA_CAP_UNFINISHED / ZLUA_CAP_POSITION */
	} cap[ZLUA_PAT_MAXCAP];
} zlua_matcher;

/* What the matcher needs to know of a pattern before matching. */
typedef struct zlua_patinfo {
	size_t len;  /* the pattern's length (LuaJIT: up to its first '\0') */
	int nframes; /* frames a match may need: 1 to ZLUA_PAT_LEVELS - 1 */
	int first;   /* byte every match starts with, or -1 */
} zlua_patinfo;

/* Analyses pattern p (anchor removed): a match needs at most one frame per
 * quantifier or parenthesis, so simple patterns need little C stack.
 * Raises nothing. */
void zlua_pat_analyse(const char *p, size_t lp, zlua_patinfo *info);

/* Prepares m for subject s and pattern p, analysed into info (whose
 * length is trusted only up to lp). The caller then provides
 * info->nframes frames with ZLUA_PAT_FRAMES. Raises nothing. */
static inline void zlua_pat_init(zlua_matcher *m, lua_State *L, const char *s, size_t ls,
				 const char *p, size_t lp, const zlua_patinfo *info)
{
	m->src = s;
	m->src_end = s + ls;
	m->pat = p;
	m->pat_end = p + (info->len < lp ? info->len : lp);
	m->L = L;
	m->env = NULL;
	m->budget = ZLUA_PAT_TICK;
	m->level = 0;
	m->first = info->first;
}

/* Declares the frames of m on the caller's C stack (n from
 * zlua_pat_analyse, so at most ZLUA_PAT_LEVELS - 1). */
#define ZLUA_PAT_FRAMES(m, n)                                  \
	zlua_patframe zlua_frames_[(n)];                       \
	unsigned char zlua_kinds_[(n)];                        \
	(m)->frames = zlua_frames_;                            \
	(m)->kinds = zlua_kinds_;                              \
	(m)->nframes = (n)

/* [lua] The first position at or after s (at most src_end) where the
 * pattern matches, trying only s when anchor is set; a match ending at
 * reject is skipped (Lua 5.4's rule against an empty match right after
 * the previous one). Returns the start and sets *e to the end, or NULL.
 * Raises the pattern's errors and the interruption. */
const char *zlua_pat_search(zlua_matcher *m, const char *s, int anchor,
			    const char *reject, const char **e);

/* [lua] Capture i of the last match as a length (*cap its start), or
 * ZLUA_CAP_POSITION for a position capture (*cap its address). With no
 * captures, capture 0 is the whole match s..e. Raises "invalid capture
 * index" and "unfinished capture". [-0, +0] */
ptrdiff_t zlua_pat_capture(zlua_matcher *m, int i, const char *s, const char *e,
			   const char **cap);

/* [lua] Pushes capture i (see zlua_pat_capture). [-0, +1] */
void zlua_pat_push_capture(zlua_matcher *m, int i, const char *s, const char *e);

/* [lua] Pushes every capture, or the whole match s..e when there are none
 * and s is not NULL; returns how many. [-0, +n] */
int zlua_pat_push_captures(zlua_matcher *m, const char *s, const char *e);

/* [lua] Resets the budget and raises the interruption if the context of a
 * running limited call is done. [-0, +0] */
void zlua_pat_tick(zlua_matcher *m);

/* [lua] Plain find: the first occurrence of p (lp bytes) in s (ls
 * bytes), or NULL. Needs only m->L, m->env and m->budget set. Short
 * needles: memchr and memcmp (at most 64 bytes compared per candidate);
 * longer ones: memmem (linear). Either way in windows, with interrupt
 * checks between them. */
const char *zlua_pat_plain(zlua_matcher *m, const char *s, size_t ls,
			   const char *p, size_t lp);

#endif
