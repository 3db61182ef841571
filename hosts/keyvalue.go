package hosts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/internal/list"
)

type parser struct {
	t    *TopologyFile
	s    *Settings         // the caller's keys; nil for none
	raw  map[string]string // canonical key -> value
	keys []string          // canonical keys in file order
}

func (p *parser) errAt(line int, key string, format string, args ...any) error {
	return &Error{File: p.t.File, Line: line, Key: key, Err: fmt.Errorf(format, args...)}
}

func (p *parser) err(key string, format string, args ...any) error {
	return p.errAt(p.t.Lines[key], p.t.spelled(key), format, args...)
}

// lines splits the file into KEY=value assignments in the subset of shell
// syntax that autobench.conf uses: blank lines, # comments, an optional
// `export`, and a value bare, "double-quoted" (with \" \\ \$ escapes) or
// 'single-quoted', followed by nothing but an optional comment.
func (p *parser) lines(src []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, maxFileBytes+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			line = strings.TrimSpace(rest)
		}
		key, rest, ok := strings.Cut(line, "=")
		if !ok {
			return p.errAt(n, "", "line %q: want KEY=value", clip(line))
		}
		if !validKey(key) {
			return p.errAt(n, "", "key %q: want upper case letters, digits and _ (KEY=value, no spaces around =)", clip(key))
		}
		value, err := unquote(rest)
		if err != nil {
			return p.errAt(n, key, "%v", err)
		}
		canon, _ := p.s.alias(key)
		if !p.knownKey(canon) {
			return p.errAt(n, key, "unknown key%s", p.suggest(key))
		}
		if prev, dup := p.t.Lines[canon]; dup {
			what := ""
			if w := p.t.written[canon]; w != key {
				what = " (as " + w + ")"
			}
			return p.errAt(n, key, "already set%s at line %d", what, prev)
		}
		p.t.Lines[canon] = n
		p.t.written[canon] = key
		p.raw[canon] = value
		p.keys = append(p.keys, canon)
	}
	return nil
}

func validKey(k string) bool {
	if k == "" || k[0] < 'A' || k[0] > 'Z' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// unquote reads the value part of a line: everything after `=`.
func unquote(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	var val strings.Builder
	var rest string
	switch s[0] {
	case '"':
		i := 1
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`, s[i+1]) >= 0 {
				i++
			}
			val.WriteByte(s[i])
		}
		if i == len(s) {
			return "", errors.New("unterminated \"")
		}
		rest = s[i+1:]
	case '\'':
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", errors.New("unterminated '")
		}
		val.WriteString(s[1 : 1+end])
		rest = s[2+end:]
	default:
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		val.WriteString(s[:end])
		rest = s[end:]
		if strings.ContainsAny(val.String(), `"'`) {
			return "", fmt.Errorf("value %q: quote the whole value", clip(val.String()))
		}
	}
	rest = strings.TrimSpace(rest)
	if rest != "" && rest[0] != '#' {
		return "", fmt.Errorf("text %q after the value: quote a value with spaces", clip(rest))
	}
	return val.String(), nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// list is the items of key's LIST value v, or the error naming it.
func (p *parser) list(key, v string) ([]string, error) {
	items, err := list.Items(v)
	if err != nil {
		return nil, p.err(key, "%v", err)
	}
	return items, nil
}
