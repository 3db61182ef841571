package hop

import (
	"strconv"
	"strings"
)

// Swept says which settings take more than one value over a run's paths:
// their columns tell apart the rows a sweep gives one path, in the text
// report and in the HTML one alike.
type Swept struct{ Threads, Service, Size, Rows bool }

// SweptOf is the settings paths vary in.
func SweptOf(paths []PathResult) Swept {
	var s Swept
	for _, p := range paths {
		q := paths[0]
		s.Threads = s.Threads || p.Threads != q.Threads
		s.Service = s.Service || p.ServiceTimeUs != q.ServiceTimeUs
		s.Size = s.Size || p.Size != q.Size
		s.Rows = s.Rows || p.Rows != q.Rows
	}
	return s
}

// Or is what either s or t sweeps.
func (s Swept) Or(t Swept) Swept {
	return Swept{s.Threads || t.Threads, s.Service || t.Service, s.Size || t.Size, s.Rows || t.Rows}
}

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
	v := SweptOf(all)
	var b strings.Builder
	b.WriteString(name)
	b.WriteString("_t" + strconv.Itoa(r.Threads))
	if v.Service {
		b.WriteString("_svc" + strings.ReplaceAll(strconv.FormatFloat(r.ServiceTimeUs, 'g', -1, 64), ".", "p") + "us")
	}
	if v.Size {
		b.WriteString("_size" + strconv.Itoa(r.Size))
	}
	if v.Rows {
		b.WriteString("_rows" + strconv.Itoa(r.Rows))
	}
	return b.String()
}
