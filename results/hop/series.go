package hop

import "fmt"

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

// Heads are the columns' names; none when nothing is swept.
func (s Swept) Heads() []string {
	var h []string
	if s.Threads {
		h = append(h, "threads")
	}
	if s.Service {
		h = append(h, "service µs")
	}
	if s.Size {
		h = append(h, "size")
	}
	if s.Rows {
		h = append(h, "rows")
	}
	return h
}

// Cells are p's values under Heads.
func (s Swept) Cells(p PathResult) []string {
	var c []string
	if s.Threads {
		c = append(c, fmt.Sprint(p.Threads))
	}
	if s.Service {
		c = append(c, Us(p.ServiceTimeUs))
	}
	if s.Size {
		c = append(c, fmt.Sprint(p.Size))
	}
	if s.Rows {
		c = append(c, fmt.Sprint(p.Rows))
	}
	return c
}
