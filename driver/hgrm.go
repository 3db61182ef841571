package driver

import (
	"strconv"
	"strings"
)

// FileName is a file name for r among all: its path name with every
// character a shell or file system dislikes replaced, then its thread
// count, and its service time, size and rows where those vary among all.
func FileName(r PathResult, all []PathResult) string {
	name := strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.':
			return c
		}
		return '_'
	}, strings.ReplaceAll(r.Name, "->", "-to-"))
	v := sweeps(all)
	var b strings.Builder
	b.WriteString(name)
	b.WriteString("_t" + strconv.Itoa(r.Threads))
	if v.service {
		b.WriteString("_svc" + strings.ReplaceAll(strconv.FormatFloat(r.ServiceTimeUs, 'g', -1, 64), ".", "p") + "us")
	}
	if v.size {
		b.WriteString("_size" + strconv.Itoa(r.Size))
	}
	if v.rows {
		b.WriteString("_rows" + strconv.Itoa(r.Rows))
	}
	return b.String()
}
