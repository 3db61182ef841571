#include "textflag.h"

// func sockcall(trap uintptr, fd int, p unsafe.Pointer, n int, flags uintptr) (r int, errno unix.Errno)
//
// One recvfrom(2) or sendto(2) with no address (a5 = a6 = 0), raw: see
// sockcall_linux.go for why it is written here.
TEXT ·sockcall(SB), NOSPLIT, $0-56
	MOVD	fd+8(FP), R0
	MOVD	p+16(FP), R1
	MOVD	n+24(FP), R2
	MOVD	flags+32(FP), R3
	MOVD	$0, R4
	MOVD	$0, R5
	MOVD	trap+0(FP), R8
	SVC
	CMN	$4095, R0
	BCC	ok
	MOVD	$-1, R4
	MOVD	R4, r+40(FP)
	NEG	R0, R0
	MOVD	R0, errno+48(FP)
	RET
ok:
	MOVD	R0, r+40(FP)
	MOVD	ZR, errno+48(FP)
	RET
