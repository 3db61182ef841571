package cli

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// BadValue is the usage error for a value of a flag (or an argument) that
// makes no sense: `--threads "0": want at least 1`. name is what the user
// typed ("--threads", or "LISTEN" for an argument) and value the text they
// gave, each said once: the prefixes by which the layers below named
// themselves ("pingpong: ", "sockets: ") or restated the value
// (`list "0": `, `parse "0": `, "0: ") are cut from err's message.
func BadValue(name, value string, err error) error {
	return Usage(fmt.Errorf("%s %q: %s", name, value, Detail(value, err)))
}

// BadList is BadValue for a LIST flag (1,2,4, 1;2;4, 1-4): internal/list's
// errors already name the item at fault and the common mistakes (a minus
// sign read as a range with no start), so a flag and a topology file's key
// say the same.
func BadList(name, value string, err error) error { return BadValue(name, value, err) }

// BadAddress is BadValue for an address, with the hint a common mistake
// deserves: `127.0.0.1:7000` has no type, and tcp: is what was meant.
func BadAddress(name, value string, err error) error {
	if hint := AddressHint(value); hint != "" {
		return Usage(fmt.Errorf("%s %q: no address type; did you mean %s?", name, value, hint))
	}
	return BadValue(name, value, err)
}

// AddressHint is the address s was likely meant to be when it names no
// address type: tcp:HOST:PORT for a HOST:PORT or a bare port, unix:PATH for
// a path. It is "" when s looks like nothing hoplat reads.
func AddressHint(s string) string {
	head, _, _ := strings.Cut(s, ",")
	if strings.HasPrefix(head, "/") || strings.HasPrefix(head, "./") {
		return "unix:" + s
	}
	if _, err := strconv.ParseUint(head, 10, 16); err == nil {
		return "tcp:" + s
	}
	if _, port, err := net.SplitHostPort(head); err == nil {
		if _, err := strconv.ParseUint(port, 10, 16); err == nil {
			return "tcp:" + s
		}
	}
	return ""
}

// Detail is err's message without the leading parts that say nothing the
// flag and its value do not: a package's name ("sockets"), a noun of
// a layer ("thread counts"), or a part that holds the value itself. The
// last part is always kept.
func Detail(value string, err error) string {
	msg := err.Error()
	quoted := strconv.Quote(value)
	for {
		head, rest, ok := strings.Cut(msg, ": ")
		if !ok || rest == "" {
			break
		}
		restated := head == value || strings.Contains(head, quoted) || strings.HasSuffix(head, " "+value)
		if !isWords(head) && !restated {
			break
		}
		msg = rest
	}
	// `unknown format "xml"` after `--format "xml": ` says it twice.
	if i := strings.Index(msg, " "+quoted); i >= 0 && quoted != `""` {
		msg = msg[:i] + msg[i+len(quoted)+1:]
	}
	return msg
}

// isWords reports whether s is lower-case words alone, as package names
// and the nouns of wrapping layers are ("pingpong", "thread counts"): a
// part with a quote, a digit or a flag in it says what is wrong, and stays.
func isWords(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != ' ' {
			return false
		}
	}
	return true
}
