//go:build amd64 && !race

#include "textflag.h"

// func Int32(p *int32, v int32)
TEXT ·Int32(SB), NOSPLIT, $0-12
	MOVQ p+0(FP), AX
	MOVL v+8(FP), BX
	MOVL BX, 0(AX)
	RET

// func Uintptr(p *uintptr, v uintptr)
TEXT ·Uintptr(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ BX, 0(AX)
	RET
