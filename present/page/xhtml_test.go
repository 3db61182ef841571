package page

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// checkXHTML is the page's validity check: the page is written as XHTML-
// compatible HTML5 (polyglot markup), so a strict XML parser reads it
// (well-formed, only XML's own entities), and on top of that it holds
// the HTML rules a browser's parser would otherwise repair silently:
// only known elements, a non-void HTML element never self-closed, tables,
// lists and paragraphs nested as HTML allows, unique ids, every internal
// reference (#id, url(#id)) resolving, no script, no event handler, and
// no attribute that makes the browser fetch anything.
func checkXHTML(page []byte) error {
	if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>\n")) {
		return errors.New("does not start with <!DOCTYPE html>")
	}
	html := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true,
		"nav": true, "section": true, "h1": true, "h2": true, "h3": true, "p": true, "a": true, "ul": true, "li": true, "table": true,
		"tr": true, "th": true, "td": true, "div": true, "figure": true, "figcaption": true, "pre": true, "code": true, "small": true, "span": true}
	void := map[string]bool{"meta": true}
	svg := map[string]bool{"svg": true, "defs": true, "pattern": true, "rect": true, "path": true, "circle": true, "line": true,
		"polyline": true, "text": true, "title": true, "g": true}
	block := map[string]bool{"div": true, "p": true, "table": true, "ul": true, "section": true, "figure": true, "h1": true, "h2": true,
		"h3": true, "header": true, "nav": true, "pre": true}
	parentOf := map[string][]string{"tr": {"table"}, "td": {"tr"}, "th": {"tr"}, "li": {"ul"}, "figcaption": {"figure"}}

	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	d.Entity = map[string]string{} // XML's five only: no HTML named entities
	var stack []xml.Name
	ids := map[string]bool{}
	var refs []string
	urlRef := regexp.MustCompile(`url\(#([^)]+)\)`)
	roots := 0
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("offset %d: %w", off, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			end := d.InputOffset()
			name := t.Name.Local
			inSVG := t.Name.Space == "http://www.w3.org/2000/svg"
			where := fmt.Sprintf("<%s> at offset %d", name, off)
			if len(stack) == 0 {
				roots++
				if name != "html" || t.Name.Space != "http://www.w3.org/1999/xhtml" {
					return fmt.Errorf("%s: the root must be html in the XHTML namespace", where)
				}
			}
			switch {
			case inSVG && !svg[name], !inSVG && !html[name]:
				return fmt.Errorf("%s: element not in the page's vocabulary", where)
			case !inSVG && !void[name] && bytes.HasSuffix(page[:end], []byte("/>")):
				return fmt.Errorf("%s: a non-void HTML element self-closed (HTML parsers leave it open)", where)
			case !inSVG && void[name] && !bytes.HasSuffix(page[:end], []byte("/>")):
				return fmt.Errorf("%s: a void element not self-closed", where)
			}
			if want, ok := parentOf[name]; ok && !inSVG {
				if len(stack) == 0 || !slices.Contains(want, stack[len(stack)-1].Local) {
					return fmt.Errorf("%s: must sit directly in %v", where, want)
				}
			}
			if block[name] && !inSVG {
				for _, s := range stack {
					if s.Local == "p" || s.Local == "span" || s.Local == "a" || s.Local == "small" {
						return fmt.Errorf("%s: block inside <%s> (an HTML parser closes it early)", where, s.Local)
					}
				}
			}
			for _, a := range t.Attr {
				an := strings.ToLower(a.Name.Local)
				switch {
				case strings.HasPrefix(an, "on"):
					return fmt.Errorf("%s: event handler %s", where, an)
				case an == "src" || an == "srcset" || an == "poster" || an == "data" || a.Name.Space == "http://www.w3.org/1999/xlink":
					return fmt.Errorf("%s: %s would fetch", where, an)
				case an == "id":
					if ids[a.Value] {
						return fmt.Errorf("%s: duplicate id %q", where, a.Value)
					}
					ids[a.Value] = true
				case an == "href":
					if strings.HasPrefix(a.Value, "#") {
						refs = append(refs, a.Value[1:])
					} else if strings.Contains(a.Value, ":") || strings.HasPrefix(a.Value, "//") {
						return fmt.Errorf("%s: href %q leaves the run's directory", where, a.Value)
					}
				}
				for _, m := range urlRef.FindAllStringSubmatch(a.Value, -1) {
					refs = append(refs, m[1])
				}
			}
			if name == "script" || name == "link" || name == "img" || name == "iframe" {
				return fmt.Errorf("%s: not allowed", where)
			}
			stack = append(stack, t.Name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1].Local == "style" && (bytes.Contains(t, []byte("@import")) || bytes.Contains(t, []byte("url("))) {
				return errors.New("the style sheet fetches something")
			}
		}
	}
	if roots != 1 {
		return fmt.Errorf("%d root elements", roots)
	}
	for _, r := range refs {
		if !ids[r] {
			return fmt.Errorf("reference to missing id %q", r)
		}
	}
	return nil
}
