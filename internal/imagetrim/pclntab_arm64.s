//go:build linux

#include "textflag.h"

// func pclntab() (lo, hi uintptr)
TEXT ·pclntab(SB), NOSPLIT|NOFRAME, $0-16
	MOVD	$runtime·pclntab(SB), R0
	MOVD	R0, lo+0(FP)
	MOVD	$runtime·epclntab(SB), R0
	MOVD	R0, hi+8(FP)
	RET
