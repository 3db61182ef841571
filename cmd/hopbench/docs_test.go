package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The README is a front page: at most this many characters, and the
// pasted make bench output starts within its first screen.
const (
	readmeMaxChars  = 12000
	readmeFirstView = 40
	docsMaxColumns  = 100
)

// docFile is one Markdown file a person reads: the README and docs/*.md,
// named by its path from the repository root.
type docFile struct {
	name  string
	lines []string
}

// docFiles reads README.md and every docs/*.md (docs/ also holds JSON, YAML
// and a systemd unit: files a program reads, not held to these rules).
func docFiles(t *testing.T) []docFile {
	t.Helper()
	names, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	names = append([]string{"../../README.md"}, names...)
	var files []docFile
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, docFile{
			name:  strings.TrimPrefix(n, "../../"),
			lines: strings.Split(string(b), "\n"),
		})
	}
	if len(files) < 2 {
		t.Fatalf("found %d Markdown files; want README.md and docs/*.md", len(files))
	}
	return files
}

// TestReadmeIsAFrontPage holds the README to one front page: its length
// in characters, and the pasted output begun within the first screen.
func TestReadmeIsAFrontPage(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCount(b); n > readmeMaxChars {
		t.Errorf("README.md is %d characters; a front page holds at most %d (the reference goes in docs/)",
			n, readmeMaxChars)
	}
	lines := strings.Split(string(b), "\n")
	begin := -1
	for i, l := range lines {
		if strings.HasPrefix(l, sampleBegin) {
			begin = i
			break
		}
	}
	// The marker, the fence and the machine line must all be on screen.
	if begin < 0 || begin+3 > readmeFirstView {
		t.Errorf("README.md's pasted output starts on line %d; want it within the first %d lines",
			begin+1, readmeFirstView)
	}
}

// TestDocsFitColumns holds every line of the README and docs/*.md, code
// blocks and tables included, to the width of a terminal.
func TestDocsFitColumns(t *testing.T) {
	for _, f := range docFiles(t) {
		for i, l := range f.lines {
			if n := utf8.RuneCountInString(l); n > docsMaxColumns {
				t.Errorf("%s:%d is %d columns wide; want at most %d: %.60s…", f.name, i+1, n, docsMaxColumns, l)
			}
		}
	}
}

// link matches an inline Markdown link's target, [text](target), and
// refLink a reference definition's, [name]: target.
var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	refLink = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
)

// TestDocsLinksResolve checks every relative link in the README and
// docs/*.md: the file it names exists in the repository, and an anchor
// into a Markdown file names one of its headings.
func TestDocsLinksResolve(t *testing.T) {
	files := docFiles(t)
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		anchors[f.name] = headingAnchors(f.lines)
	}
	checked := 0
	for _, f := range files {
		fence := false
		for i, l := range f.lines {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fence = !fence
				continue
			}
			if fence {
				continue
			}
			var targets []string
			for _, m := range link.FindAllStringSubmatch(l, -1) {
				targets = append(targets, m[1])
			}
			if m := refLink.FindStringSubmatch(l); m != nil {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if err := resolve(f.name, target, anchors); err != nil {
					t.Errorf("%s:%d: link %s: %v", f.name, i+1, target, err)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("found no links in README.md and docs/*.md; the README links the reference")
	}
}

// resolve reports whether a link target from the file from (a path from
// the repository root) names a file there, and a heading when it has an
// anchor into a Markdown file. Links out of the repository are not
// followed.
func resolve(from, target string, anchors map[string]map[string]bool) error {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return nil
	}
	path, anchor, _ := strings.Cut(target, "#")
	name := from
	if path != "" {
		if filepath.IsAbs(path) {
			return fmt.Errorf("an absolute path; want one relative to %s", filepath.Dir(from))
		}
		name = filepath.Clean(filepath.Join(filepath.Dir(from), path))
		if strings.HasPrefix(name, "..") {
			return fmt.Errorf("leaves the repository")
		}
		if _, err := os.Stat(filepath.Join("../..", name)); err != nil {
			return fmt.Errorf("no such file in the repository (%s)", name)
		}
	}
	if anchor == "" || !strings.HasSuffix(name, ".md") {
		return nil
	}
	heads, ok := anchors[name]
	if !ok {
		return nil // a Markdown file outside README and docs/: its file is enough
	}
	if !heads[anchor] {
		return fmt.Errorf("%s has no heading whose anchor is #%s", name, anchor)
	}
	return nil
}

// headingAnchors is the anchors GitHub gives a Markdown file's headings:
// lower case, punctuation dropped, spaces to hyphens, and a repeated one
// numbered -1, -2, ….
func headingAnchors(lines []string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}
