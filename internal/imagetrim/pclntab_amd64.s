//go:build linux

#include "textflag.h"

// func pclntab() (lo, hi uintptr)
TEXT ·pclntab(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ	$runtime·pclntab(SB), AX
	MOVQ	AX, lo+0(FP)
	MOVQ	$runtime·epclntab(SB), AX
	MOVQ	AX, hi+8(FP)
	RET
