/* poke.c: makes the hook of a limited call fire at the next instruction
 * when its context ends, however long the instruction running then lasts
 * and whether or not it allocates. The count hook alone checks every 1 to
 * 1000 instructions: a loop of slow C calls that allocate nothing
 * (table.sort of a large table, utf8.len of a long string) ran for 1000
 * of them past the deadline, seconds to minutes. The goroutine watching
 * the context sends a signal to the OS thread that runs the call; the
 * handler, on that thread, calls lua_sethook on the running Lua thread
 * with a count of 1, as lua.c's and luajit.c's SIGINT handlers do (both
 * Lua 5.4 and LuaJIT allow it at any point of the thread's execution).
 *
 * Which env a thread runs a limited call of is thread-local: set by
 * zlua_limit_begin, given back by zlua_limit_end, on the same thread
 * (Go locks the goroutine to its thread in between), so the handler never
 * sees an env that is not in a limited call on its own thread. A signal
 * that comes late, or to a thread the kernel gave the id of one that
 * ended, finds no env or one whose context is not done, and does nothing.
 *
 * The signal is ZLUA_POKE_SIGNO() (SIGRTMIN + 8), a real-time signal Go
 * does not use; the handler is installed at the first limited call,
 * unless the environment variable ZLUA_POKE_SIGNAL is "off" when it
 * runs. If other code installs another handler for that signal later
 * (signal.Ignore then signal.Notify, or C code), zlua_poke sees the
 * handler is not zlua's and sends nothing. Without the signal, limited
 * calls are checked by the count hook and the allocator alone. A limited
 * call that began with the handler zlua's has no count hook until its
 * context is done, and only the signal reaches a loop that never
 * allocates: so when the signal was left with no handler at all
 * (signal.Ignore or signal.Reset of it, C code setting SIG_IGN or
 * SIG_DFL), nobody else wants it, and zlua_poke takes it back (outside
 * probe E1-F1: such a loop ran on past its deadline forever). */
#include "zlua.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The env whose limited call runs on this thread (innermost), or NULL. */
static __thread zlua_env *limited_env __attribute__((tls_model("initial-exec")));
/* Every env whose limited call runs on this thread, outermost first: the
 * first ZLUA_POKE_NEST of them (nest_n counts them all). An env's code can
 * run under another env's limited call on the same thread (A's limited
 * call calls Go, which runs B's, which calls Go, which calls into A), and
 * a lazy limit has no count hook to notice A's mark there: the handler
 * hurries every marked env of the thread, not only the innermost. */
#define ZLUA_POKE_NEST 32
static __thread zlua_env *nest[ZLUA_POKE_NEST] __attribute__((tls_model("initial-exec")));
static __thread int nest_n __attribute__((tls_model("initial-exec")));
/* This thread's kernel id, once asked. */
static __thread pid_t own_tid __attribute__((tls_model("initial-exec")));

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int installed; /* atomic: the handler was installed */

/* The handler: async-signal-safe (a thread-local read, loads of the env's
 * flags, lua_sethook). errno is kept for the code it interrupts. */
static void on_poke(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;
	zlua_env *env = limited_env, *e;
	int i = nest_n < ZLUA_POKE_NEST ? nest_n : ZLUA_POKE_NEST;
	(void)sig;
	(void)info;
	(void)uctx;
	if (env != NULL && zlua_interrupted(env))
		zlua_hook_hurry_running(env);
	while (i-- > 0) {
		e = nest[i];
		if (e != env && e != NULL && zlua_interrupted(e))
			zlua_hook_hurry_running(e);
	}
	errno = saved;
}

/* Sets zlua's handler; whether sigaction took it. */
static int set_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_poke;
	/* SA_ONSTACK: Go requires it of every handler (goroutine stacks are
	 * small); SA_RESTART: a system call it interrupts goes on. Every
	 * signal is blocked while it runs: Go's own (preemption, profiling)
	 * never nest in it. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	return sigaction(ZLUA_POKE_SIGNO(), &sa, NULL) == 0;
}

/* Whether ZLUA_POKE_SIGNAL turns the signal off: "off", "0", "false" or
 * "no", in any case (only "off" counted before: probe F1's note). */
static int turned_off(const char *opt)
{
	return opt != NULL && (strcasecmp(opt, "off") == 0 || strcmp(opt, "0") == 0 ||
			       strcasecmp(opt, "false") == 0 || strcasecmp(opt, "no") == 0);
}

static void install(void)
{
	if (turned_off(getenv("ZLUA_POKE_SIGNAL")))
		return; /* the program keeps the signal: no handler, no signals */
	if (set_handler())
		__atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
}

/* Whether the signal's handler is still zlua's. */
static int handler_is_ours(void)
{
	struct sigaction cur;
	if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE) || sigaction(ZLUA_POKE_SIGNO(), NULL, &cur) != 0)
		return 0;
	return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_poke;
}

/* Takes the signal back when zlua's handler was installed and the signal
 * has no handler now (SIG_IGN or SIG_DFL): see the top of the file.
 * Another handler keeps it. Whether the handler is zlua's after. */
static int reclaim(void)
{
	struct sigaction cur;
	if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE) || sigaction(ZLUA_POKE_SIGNO(), NULL, &cur) != 0)
		return 0;
	/* sa_handler and sa_sigaction share their storage; Go's runtime sets
	 * SA_SIGINFO with SIG_IGN too */
	if (cur.sa_handler != SIG_IGN && cur.sa_handler != SIG_DFL)
		return 0;
	return set_handler() && handler_is_ours();
}

/* The last look at the handler (zlua_poke_ready_at): when (monotonic ns,
 * 0: never or made stale by a failed poke) and what it saw. Atomics: any
 * thread beginning a limited call reads and writes them; a stale pair
 * read while another thread writes is at most ZLUA_POKE_RECHECK_NS old. */
static uint64_t ready_at;
static int ready_seen;

/* Whether the user may queue enough real-time signals for the pokes
 * (RLIMIT_SIGPENDING; with a limit of 0 or 1 every tgkill fails): a
 * lazy limit needs them to arrive. */
static int queue_ok(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_SIGPENDING, &rl) != 0)
		return 1; /* unknown: as Linux's default, thousands */
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= 16;
}

int zlua_poke_ready(void)
{
	int r = handler_is_ours() && queue_ok();
	__atomic_store_n(&ready_seen, r, __ATOMIC_RELAXED);
	return r;
}

int zlua_poke_ready_at(uint64_t now)
{
	uint64_t at = __atomic_load_n(&ready_at, __ATOMIC_RELAXED);
	int r;
	if (at != 0 && now - at < ZLUA_POKE_RECHECK_NS)
		return __atomic_load_n(&ready_seen, __ATOMIC_RELAXED);
	r = handler_is_ours() && queue_ok();
	__atomic_store_n(&ready_seen, r, __ATOMIC_RELAXED);
	__atomic_store_n(&ready_at, now, __ATOMIC_RELAXED);
	return r;
}

int zlua_own_tid(void)
{
	if (own_tid == 0)
		own_tid = (pid_t)syscall(SYS_gettid);
	return own_tid;
}

uintptr_t zlua_poke_begin(zlua_env *env)
{
	zlua_env *prev = limited_env;
	pthread_once(&install_once, install);
	__atomic_store_n(&env->limit_tid, zlua_own_tid(), __ATOMIC_RELAXED);
	env->limits_open++;
	limited_env = env;
	if (nest_n < ZLUA_POKE_NEST)
		nest[nest_n] = env;
	nest_n++;
	return (uintptr_t)prev;
}

int zlua_poke_nest_full(void)
{
	return nest_n > ZLUA_POKE_NEST;
}

void zlua_poke_end(zlua_env *env, uintptr_t prev, int tid)
{
	if (zlua_own_tid() != tid)
		return; /* moved: the begin thread still names env, kept (zlua_env_close) */
	limited_env = (zlua_env *)prev;
	if (nest_n > 0)
		nest_n--;
	env->limits_open--;
	/* An outer limited call of another env on this thread whose context
	 * became done while this one ran: the signals meant for it found this
	 * env, so its running thread is hurried now (a lazy limit has no
	 * count event to find the mark by itself). */
	if (prev != 0 && zlua_interrupted((zlua_env *)prev))
		zlua_hook_hurry_running((zlua_env *)prev);
}

void zlua_poke_forget(zlua_env *env, int tid)
{
	if (zlua_own_tid() != tid)
		return;
	limited_env = NULL;
	nest_n = 0;
	env->limits_open--;
}

int zlua_poke(zlua_env *env)
{
	pid_t tid = __atomic_load_n(&env->limit_tid, __ATOMIC_RELAXED);
	if (tid == 0)
		return 0;
	if (!handler_is_ours() && !reclaim()) {
		/* the next limited call looks again, and counts from its start */
		__atomic_store_n(&ready_seen, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&ready_at, 0, __ATOMIC_RELAXED);
		return 0;
	}
	if (syscall(SYS_tgkill, (pid_t)getpid(), tid, ZLUA_POKE_SIGNO()) == 0)
		return 1;
	/* EAGAIN: the queue of pending real-time signals is full (the
	 * RLIMIT_SIGPENDING of the user): a lazy limit has no count hook to
	 * fall back on, so the watcher tries again later. */
	return errno == EAGAIN ? -1 : 0;
}

int zlua_poke_signo(void)
{
	return ZLUA_POKE_SIGNO();
}

