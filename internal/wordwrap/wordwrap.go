package wordwrap

import (
	"strings"
	"unicode/utf8"
)

// Lines breaks s at its blanks into lines of at most width columns,
// counting runes (the reports hold µ and ±, two bytes each in UTF-8). Every
// line after the first starts with indent, which counts in its width; the
// first keeps the spaces s begins with. A word longer than a line stands
// alone on its line. Runs of blanks fold into one space, and a string with
// no word is one empty line.
func Lines(s string, width int, indent string) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{""}
	}
	var lines []string
	line := s[:len(s)-len(strings.TrimLeft(s, " "))] + words[0]
	for _, word := range words[1:] {
		if utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width {
			line += " " + word
			continue
		}
		lines = append(lines, line)
		line = indent + word
	}
	return append(lines, line)
}
