#include "textflag.h"

// func sockcall(trap uintptr, fd int, p unsafe.Pointer, n int, flags uintptr) (r int, errno unix.Errno)
//
// One recvfrom(2) or sendto(2) with no address (a5 = a6 = 0), raw: see
// sockcall_linux.go for why it is written here.
TEXT ·sockcall(SB), NOSPLIT, $0-56
	MOVQ	trap+0(FP), AX
	MOVQ	fd+8(FP), DI
	MOVQ	p+16(FP), SI
	MOVQ	n+24(FP), DX
	MOVQ	flags+32(FP), R10
	XORL	R8, R8
	XORL	R9, R9
	SYSCALL
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$-1, r+40(FP)
	NEGQ	AX
	MOVQ	AX, errno+48(FP)
	RET
ok:
	MOVQ	AX, r+40(FP)
	MOVQ	$0, errno+48(FP)
	RET
