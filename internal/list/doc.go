// Package list is hoplat's one LIST syntax, read by every flag that takes a
// list (--threads, --hops, --cpus, --service-time, ...), by the topology
// file's keys that take one (THREADS, HOPS, <COMPONENT>_CPUS, ...) and by the
// kernel's own cpulists:
//
//	1,2,4        items separated by commas
//	1;2;4        or by semicolons, as RonDB's autobench.conf writes them
//	1,2;4        or by both: no item holds either
//	0-3,8        an integer item may be an inclusive range
//	 1 , 2       blanks around items are ignored
//
// An empty list or an empty item is an error. Errors are *Error: the list
// as typed, then what is wrong, for the caller to put a flag's or a key's
// name before. The cpulist form is the kernel's
// (Documentation/admin-guide/cputopology.rst, bitmap_parselist in
// lib/bitmap.c), which writes only commas and ranges. It imports only the
// standard library.
package list
