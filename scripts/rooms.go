//go:build ignore

// Package main is rooms: it prints the house as go list sees it. A room is a top-level folder of
// the module (stats, sockets, analysis, pingpong, present, cmd, ...); an arrow is a room's package
// importing another room's package. Each room is printed on its floor (0 imports no other room,
// and a room sits one floor above the highest room it imports) with the rooms it imports, each
// package's imports within the module, and the libraries outside the standard library it links.
// An arrow inside an import cycle between rooms runs upward, and is printed as such; so is a
// package of the stats room that links a library its room may not (package stats: the
// histogram library only).
//
//	go run scripts/rooms.go [-test] [-short] [packages]
//
// -test counts the imports of the packages' tests too; -short prints the rooms and the summary
// without the per-package lines. The packages default to ./... . It exits 1 when an arrow runs
// upward.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
)

// pkg is the part of go list -json's output rooms reads.
type pkg struct {
	ImportPath   string
	Module       *struct{ Path string }
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// allowed names, per package of a leaf room, the libraries outside the standard library it may
// link: the statistics leaf links only the histogram library, and series, beside it, the
// statistics libraries.
var allowed = map[string][]string{
	"stats":  {"github.com/HdrHistogram/hdrhistogram-go"},
	"series": {"gonum.org/v1/gonum/", "github.com/montanaflynn/stats"},
}

// pkgRow is one package: its imports within the module and outside it.
type pkgRow struct {
	rel      string
	inside   []string // imports within the module, relative
	external []string // imports outside the module and the standard library
}

// house is the module's rooms: each room's packages, the arrows from a
// room to each room it imports (with the imports that make them), and
// what a leaf links that its room may not.
type house struct {
	rows   map[string][]pkgRow
	arrows map[string]map[string][]string
	notes  []string
}

func main() {
	withTests := flag.Bool("test", false, "count the tests' imports too")
	short := flag.Bool("short", false, "print rooms and the summary only")
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := list(patterns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rooms:", err)
		os.Exit(2)
	}
	if len(pkgs) == 0 {
		fmt.Fprintln(os.Stderr, "rooms: no packages")
		os.Exit(2)
	}
	h := read(pkgs, *withTests)
	upward, rooms, top, nArrows := h.print(*short)
	what := "non-test code"
	if *withTests {
		what = "code and tests"
	}
	fmt.Printf("\n%s: %d rooms on %d floors, %d arrows, %d upward\n", what, rooms, top+1, nArrows, len(upward))
	for _, u := range upward {
		fmt.Println("upward:", u)
	}
	for _, n := range h.notes {
		fmt.Println("leaf:", n)
	}
	if len(upward) > 0 || len(h.notes) > 0 {
		os.Exit(1)
	}
}

// read sorts pkgs into rooms and arrows, the tests' imports counted when
// withTests is set.
func read(pkgs []pkg, withTests bool) *house {
	module := pkgs[0].Module.Path
	h := &house{rows: map[string][]pkgRow{}, arrows: map[string]map[string][]string{}}
	for _, p := range pkgs {
		rel := relative(module, p.ImportPath)
		room := roomOf(rel)
		imports := p.Imports
		if withTests {
			imports = append(append(append([]string(nil), imports...), p.TestImports...), p.XTestImports...)
		}
		in, ext := map[string]bool{}, map[string]bool{}
		for _, imp := range imports {
			switch {
			case imp == p.ImportPath:
			case imp == module || strings.HasPrefix(imp, module+"/"):
				in[relative(module, imp)] = true
			case isStd(imp):
			default:
				ext[imp] = true
			}
		}
		r := pkgRow{rel: rel, inside: keys(in), external: keys(ext)}
		h.rows[room] = append(h.rows[room], r)
		if h.arrows[room] == nil {
			h.arrows[room] = map[string][]string{}
		}
		for _, imp := range r.inside {
			if to := roomOf(imp); to != room {
				h.arrows[room][to] = append(h.arrows[room][to], rel+" -> "+imp)
			}
		}
		if libs, ok := allowed[rel]; ok {
			for _, e := range r.external {
				if !anyPrefix(e, libs) {
					h.notes = append(h.notes, fmt.Sprintf("%s links %s (allowed: %s)", rel, e, strings.Join(libs, ", ")))
				}
			}
		}
	}
	return h
}

// print writes each room on its floor with the rooms it imports (and,
// unless short, its packages' imports), and returns the arrows that run
// upward, the count of rooms, the top floor and the count of arrows.
func (h *house) print(short bool) (upward []string, nRooms, top, nArrows int) {
	rooms := keys(h.rows)
	comp := components(rooms, h.arrows)
	floor := floors(rooms, h.arrows, comp)
	sort.SliceStable(rooms, func(i, j int) bool {
		if floor[rooms[i]] != floor[rooms[j]] {
			return floor[rooms[i]] < floor[rooms[j]]
		}
		return rooms[i] < rooms[j]
	})
	for _, room := range rooms {
		top = max(top, floor[room])
		to := keys(h.arrows[room])
		nArrows += len(to)
		marked := make([]string, len(to))
		for i, t := range to {
			marked[i] = t
			if comp[t] == comp[room] {
				marked[i] = t + " (UPWARD)"
				upward = append(upward, h.arrows[room][t]...)
			}
		}
		imports := "nothing in the module"
		if len(to) > 0 {
			imports = strings.Join(marked, ", ")
		}
		fmt.Printf("floor %d  %-10s imports %s\n", floor[room], room, imports)
		if short {
			continue
		}
		sort.Slice(h.rows[room], func(i, j int) bool { return h.rows[room][i].rel < h.rows[room][j].rel })
		for _, r := range h.rows[room] {
			line := "    " + r.rel + ": " + strings.Join(r.inside, " ")
			if len(r.external) > 0 {
				line += " [" + strings.Join(r.external, " ") + "]"
			}
			fmt.Println(strings.TrimRight(line, " "))
		}
	}
	return upward, len(rooms), top, nArrows
}

// list runs go list -json over patterns.
func list(patterns []string) ([]pkg, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Module,Imports,TestImports,XTestImports"}, patterns...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, errb.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		if p.Module != nil {
			pkgs = append(pkgs, p)
		}
	}
}

func relative(module, path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// roomOf is a package's top-level folder.
func roomOf(rel string) string {
	room, _, _ := strings.Cut(rel, "/")
	return room
}

// isStd says whether path is the standard library's: its first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func anyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == p || strings.HasSuffix(p, "/") && strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// keys are m's keys, sorted.
func keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// components numbers the strongly connected components of the room graph (Tarjan): rooms
// that import each other, directly or around a cycle, share a number.
func components(rooms []string, arrows map[string]map[string][]string) map[string]int {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	comp := map[string]int{}
	var stack []string
	next, n := 0, 0
	var visit func(string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range keys(arrows[v]) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = n
				if w == v {
					break
				}
			}
			n++
		}
	}
	for _, r := range rooms {
		if _, seen := index[r]; !seen {
			visit(r)
		}
	}
	return comp
}

// floors puts each room one floor above the highest room it imports outside its own cycle.
func floors(rooms []string, arrows map[string]map[string][]string, comp map[string]int) map[string]int {
	floor := map[string]int{}
	done := map[string]bool{}
	var place func(string) int
	place = func(r string) int {
		if done[r] {
			return floor[r]
		}
		done[r] = true // a room in a cycle is placed once; the cycle's arrows are upward
		f := 0
		for t := range arrows[r] {
			if comp[t] != comp[r] {
				f = max(f, place(t)+1)
			}
		}
		floor[r] = f
		return f
	}
	for _, r := range rooms {
		place(r)
	}
	return floor
}
