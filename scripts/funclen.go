//go:build ignore

// Package main is funclen: it lists the non-test Go functions longer than a limit, counted from
// the line of func to the line of its closing brace, and prints how many there are.
//
//	go run scripts/funclen.go [-over 100] [-params 0] [dir ...]
//
// With -params N it lists the functions with more than N parameters instead.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	over := flag.Int("over", 100, "list functions with more lines than this")
	params := flag.Int("params", 0, "if > 0, list functions with more parameters than this instead")
	flag.Parse()
	dirs := flag.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	type row struct {
		where string
		n     int
	}
	var rows []row
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != dir {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				name := fn.Name.Name
				if fn.Recv != nil && len(fn.Recv.List) > 0 {
					name = recvName(fn.Recv.List[0].Type) + "." + name
				}
				start := fset.Position(fn.Pos())
				n := fset.Position(fn.End()).Line - start.Line + 1
				if *params > 0 {
					n = 0
					for _, field := range fn.Type.Params.List {
						if len(field.Names) == 0 {
							n++
						}
						n += len(field.Names)
					}
					if n > *params {
						rows = append(rows, row{fmt.Sprintf("%s:%d %s", path, start.Line, name), n})
					}
					continue
				}
				if n > *over {
					rows = append(rows, row{fmt.Sprintf("%s:%d %s", path, start.Line, name), n})
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].n > rows[j].n })
	for _, r := range rows {
		fmt.Printf("%5d  %s\n", r.n, r.where)
	}
	fmt.Printf("%d functions\n", len(rows))
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
