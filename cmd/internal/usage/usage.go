package usage

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/wordwrap"
)

// Width is the column no line of a help may pass: a terminal's 100.
const Width = 100

// Help is a command's help. Its options come from the FlagSet the command
// parses, in the order and groups Groups names, so that the help cannot
// describe a flag the command does not take.
type Help struct {
	Usage    []string // synopses, each printed after "usage: "
	About    string   // a paragraph under the synopses, wrapped; optional
	Groups   []Group
	Examples []string // command lines; a "  # comment" tail is kept
}

// Group is a heading and its options. Each entry is a flag's name,
// optionally followed by the name of its value as the help shows it
// ("target ADDR"); without one, the value's type stands in (N, DUR).
type Group struct {
	Title string
	Flags []string
}

// Section is the Group titled title of flags.
func Section(title string, flags ...string) Group { return Group{Title: title, Flags: flags} }

// nameCol is the width of the column of option names: a longer name puts
// its description on the next line.
const nameCol = 30

// Write prints h for the flags of fs. A flag no group names is printed
// under "Other options", so that it is never hidden; the test of every
// command's help fails on that heading.
func (h Help) Write(w io.Writer, fs *pflag.FlagSet) error {
	var b strings.Builder
	for i, u := range h.Usage {
		lead := "usage: "
		if i > 0 {
			lead = "       "
		}
		b.WriteString(lead + u + "\n")
	}
	if h.About != "" {
		b.WriteString("\n")
		for i, p := range strings.Split(h.About, "\n\n") {
			if i > 0 {
				b.WriteString("\n")
			}
			for _, l := range wordwrap.Lines(p, Width, "") {
				b.WriteString(l + "\n")
			}
		}
	}
	// --help and --version (Standard's) make a group of their own
	// unless a group names them.
	groups := append([]Group(nil), h.Groups...)
	var std, other []string
	fs.VisitAll(func(f *pflag.Flag) {
		switch {
		case f.Hidden || named(groups, f.Name):
		case f.Name == "help" || f.Name == "version":
			std = append(std, f.Name)
		default:
			other = append(other, f.Name)
		}
	})
	if len(other) > 0 {
		groups = append(groups, Section("Other options", other...))
	}
	if len(std) > 0 {
		groups = append(groups, Section("Help", std...))
	}
	for _, g := range groups {
		b.WriteString("\n" + g.Title + ":\n")
		for _, entry := range g.Flags {
			name, arg, _ := strings.Cut(entry, " ")
			f := fs.Lookup(name)
			if f == nil {
				return fmt.Errorf("usage: help names --%s, which %s does not take", name, fs.Name())
			}
			option(&b, f, arg)
		}
	}
	if len(h.Examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range h.Examples {
			b.WriteString("  " + e + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func named(groups []Group, name string) bool {
	for _, g := range groups {
		for _, e := range g.Flags {
			if n, _, _ := strings.Cut(e, " "); n == name {
				return true
			}
		}
	}
	return false
}

// option writes one option: its names and value, then its description
// (and default) wrapped in the column after nameCol.
func option(b *strings.Builder, f *pflag.Flag, arg string) {
	left := "      --" + f.Name
	if f.Shorthand != "" {
		left = "  -" + f.Shorthand + ", --" + f.Name
	}
	if arg == "" {
		arg = argName(f)
	}
	if arg != "" {
		left += " " + arg
	}
	desc := f.Usage
	if d := defaultText(f); d != "" {
		desc += " (default " + d + ")"
	}
	lines := wordwrap.Lines(desc, Width-nameCol, "")
	if len(left) >= nameCol-1 {
		b.WriteString(left + "\n")
	} else {
		b.WriteString(left + strings.Repeat(" ", nameCol-len(left)) + lines[0] + "\n")
		lines = lines[1:]
	}
	for _, l := range lines {
		b.WriteString(strings.Repeat(" ", nameCol) + l + "\n")
	}
}

// argName names a flag's value by its type, for a group entry that names
// none.
func argName(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "bool":
		return ""
	case "int", "int64", "uint64", "float64":
		return "N"
	case "duration":
		return "DUR"
	}
	return "VALUE"
}

// defaultText is a default worth printing: not a zero value, and a bool's
// only when it is true (then --name=false is the way out).
func defaultText(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]":
		return ""
	}
	return f.DefValue
}

// Version is the version a build linked in (go build -ldflags
// "-X main.version=..."), or "devel" when it linked none.
func Version(linked string) string {
	if linked == "" {
		return "devel"
	}
	return linked
}

// Standard adds the flags every command takes, --help (-h) and --version,
// and returns a function that, after fs.Parse, prints the help or the
// version to w when one was asked for and reports whether it did.
func Standard(fs *pflag.FlagSet, h *Help, version string) func(w io.Writer) (bool, error) {
	help := fs.BoolP("help", "h", false, "print this help and exit")
	ver := fs.Bool("version", false, "print the version and exit")
	return func(w io.Writer) (bool, error) {
		switch {
		case *help:
			return true, h.Write(w, fs)
		case *ver:
			// The binary's name, also from a subcommand's FlagSet
			// ("hopbench compare").
			name, _, _ := strings.Cut(fs.Name(), " ")
			_, err := fmt.Fprintln(w, name, Version(version))
			return true, err
		}
		return false, nil
	}
}

// Parse parses args into fs with Standard's --help and --version: after
// printing either to w it returns pflag.ErrHelp (the command's main turns
// that into exit status 0), and a parse error comes back marked as the
// user's (cli.Usage: exit status 2).
func Parse(fs *pflag.FlagSet, h *Help, version string, args []string, w io.Writer) error {
	done := Standard(fs, h, version)
	if err := fs.Parse(args); err != nil {
		return cli.Usage(err)
	}
	if ok, err := done(w); ok {
		if err == nil {
			err = pflag.ErrHelp
		}
		return err
	}
	return nil
}
