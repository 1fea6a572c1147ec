/* fasttramp.c: the C functions of the fast function ids (zlua.h,
 * ZLUA_FAST_FNS): one per id, each loading its id, a constant, and
 * jumping to zlua_tramp_fast (gate.c), so a Lua->Go call finds its Go
 * function without reading the closure's upvalue.
 *
 * They are assembled, 16 bytes apart from zlua_ft_base, rather than
 * written in C: 4096 C functions would each carry unwind tables, debug
 * information and an entry in a table of pointers (about 500 KB of the
 * binary); these are 64 KB of code and nothing else. They never appear on
 * a stack (a jump, no frame), so they need no unwind information. Only
 * linux/amd64 has them; elsewhere ZLUA_FAST_FNS is 0 and every Go
 * function takes the sentinel's trampoline. */
#include "zlua.h"

#if ZLUA_FAST_FNS > 0
/* Each stub: endbr64 (a no-op where indirect branch tracking is off),
 * the id in the second argument register, a jump (rel32) to the shared
 * body: 4 + 5 + 5 bytes, padded to ZLUA_FT_STRIDE. */
__asm__(".text\n"
	".p2align 4\n"
	".globl zlua_ft_base\n"
	".hidden zlua_ft_base\n"
	".type zlua_ft_base, @function\n"
	"zlua_ft_base:\n"
	".set zlua_ft_id, 0\n"
	".rept " ZLUA_STR(ZLUA_FAST_FNS) "\n"
	".p2align 4\n"
	"endbr64\n"
	"movl $zlua_ft_id, %esi\n"
	"jmp zlua_tramp_fast@PLT\n"
	".set zlua_ft_id, zlua_ft_id + 1\n"
	".endr\n"
	".size zlua_ft_base, . - zlua_ft_base\n");

extern const char zlua_ft_base[];

lua_CFunction zlua_fast_tramp(uint32_t fnid)
{
	return (lua_CFunction)(uintptr_t)(zlua_ft_base + (size_t)fnid * ZLUA_FT_STRIDE);
}
#endif
