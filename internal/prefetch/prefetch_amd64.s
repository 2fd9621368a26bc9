#include "textflag.h"

// func Line(p uintptr)
TEXT ·Line(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	p+0(FP), AX
	PREFETCHT0	(AX)
	RET

// func rangeLines(lo, hi uintptr)
TEXT ·rangeLines(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ	lo+0(FP), AX
	MOVQ	hi+8(FP), BX
loop:
	CMPQ	AX, BX
	JAE	done
	PREFETCHT0	(AX)
	ADDQ	$64, AX
	JMP	loop
done:
	RET
