// Package list is hoplat's one LIST syntax, read by every flag that takes a
// list (--threads, --hops, --cpus, --service-time, ...) and by the kernel's
// own cpulists:
//
//	1,2,4        items separated by commas
//	1;2;4        or by semicolons, as RonDB's autobench.conf writes them
//	0-3,8        an integer item may be an inclusive range
//	 1 , 2       blanks around items are ignored
//
// One list uses one separator; an empty list or an empty item is an error.
// The cpulist form is the kernel's (Documentation/admin-guide/cputopology.rst,
// bitmap_parselist in lib/bitmap.c), which writes only commas and ranges.
package list
