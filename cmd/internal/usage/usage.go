package usage

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/spell"
	"github.com/hoplat/hoplat/internal/wordwrap"
)

// Width is the column no line of a help may pass: a terminal's 100.
const Width = 100

// Help is a command's help. Its options come from the FlagSet the command
// parses, in the order and groups Groups names, so that the help cannot
// describe a flag the command does not take.
//
// --help prints one screen: the synopses, About, the options First names
// and the examples, then a line naming the groups of the rest. --help all
// prints that screen followed by every other option in its group.
type Help struct {
	Usage []string // synopses, each printed after "usage: "
	About string   // a paragraph under the synopses, wrapped; optional
	// First names the options people reach for first, as a Group's
	// entries do; --help shows them under "Options". Empty, --help shows
	// every group, as --help all does.
	First    []string
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

// Write prints h's one screen (--help) for the flags of fs.
func (h Help) Write(w io.Writer, fs *pflag.FlagSet) error { return h.write(w, fs, false) }

// WriteAll prints h whole (--help all): the one screen, then every other
// option by group. A flag no group names is printed under "Other
// options", so that it is never hidden; the test of every command's help
// fails on that heading.
func (h Help) WriteAll(w io.Writer, fs *pflag.FlagSet) error { return h.write(w, fs, true) }

func (h Help) write(w io.Writer, fs *pflag.FlagSet, all bool) error {
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
	// --help and --version (Standard's) close the first screen's options,
	// or make a group of their own unless a group names them.
	var first []Group
	if len(h.First) > 0 {
		first = []Group{Section("Options", h.First...)}
	}
	groups := append([]Group(nil), h.Groups...)
	var std, other []string
	fs.VisitAll(func(f *pflag.Flag) {
		switch {
		case f.Hidden || named(first, f.Name) || named(groups, f.Name):
		case f.Name == "help" || f.Name == "version":
			std = append(std, f.Name)
		default:
			other = append(other, f.Name)
		}
	})
	if len(other) > 0 {
		groups = append(groups, Section("Other options", other...))
	}
	switch {
	case len(first) > 0:
		first[0].Flags = append(first[0].Flags, std...)
	case len(std) > 0:
		groups = append(groups, Section("Help", std...))
	}
	if len(first) == 0 {
		first, groups = groups, nil
	}
	if err := writeGroups(&b, fs, first); err != nil {
		return err
	}
	if len(h.Examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range h.Examples {
			b.WriteString("  " + e + "\n")
		}
	}
	if len(groups) > 0 && !all {
		titles := make([]string, len(groups))
		for i, g := range groups {
			titles[i] = g.Title
		}
		more := "More options (" + fs.Name() + " --help all): " + strings.Join(titles, ", ") + "."
		b.WriteString("\n")
		for _, l := range wordwrap.Lines(more, Width, "") {
			b.WriteString(l + "\n")
		}
	}
	if all {
		if err := writeGroups(&b, fs, groups); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGroups writes each group's heading and options.
func writeGroups(b *strings.Builder, fs *pflag.FlagSet, groups []Group) error {
	for _, g := range groups {
		b.WriteString("\n" + g.Title + ":\n")
		for _, entry := range g.Flags {
			name, arg, _ := strings.Cut(entry, " ")
			f := fs.Lookup(name)
			if f == nil {
				return fmt.Errorf("usage: help names --%s, which %s does not take", name, fs.Name())
			}
			option(b, f, arg)
		}
	}
	return nil
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

// helpValue is --help's value: "" (not asked), "true" (one screen) or
// "all". Given without a value it is "true", so -h and --help take no
// argument, as a bool's; "--help all" is read from the first argument.
type helpValue string

func (h *helpValue) String() string { return string(*h) }
func (h *helpValue) Type() string   { return "bool" } // shown with no value name

func (h *helpValue) Set(s string) error {
	switch s {
	case "true", "all":
		*h = helpValue(s)
	case "false":
		*h = ""
	default:
		return errors.New("want all, or no value")
	}
	return nil
}

// Standard adds the flags every command takes, --help (-h) and --version,
// and returns a function that, after fs.Parse, prints the help or the
// version to w when one was asked for and reports whether it did. --help
// all (or --help=all) prints every option.
func Standard(fs *pflag.FlagSet, h *Help, version string) func(w io.Writer) (bool, error) {
	var help helpValue
	fs.VarPF(&help, "help", "h", "print this help and exit; --help all: every option").NoOptDefVal = "true"
	ver := fs.Bool("version", false, "print the version and exit")
	return func(w io.Writer) (bool, error) {
		switch {
		case help == "all" || help != "" && fs.NArg() > 0 && fs.Arg(0) == "all":
			return true, h.WriteAll(w, fs)
		case help != "":
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
// user's (cli.Usage: exit status 2), said as ParseError says it.
func Parse(fs *pflag.FlagSet, h *Help, version string, args []string, w io.Writer) error {
	done := Standard(fs, h, version)
	if err := fs.Parse(args); err != nil {
		return ParseError(fs, err)
	}
	if ok, err := done(w); ok {
		if err == nil {
			err = pflag.ErrHelp
		}
		return err
	}
	return nil
}

// ParseError is the usage error for fs.Parse's err, in the words of every
// other bad value (`--runs "x": must be an integer`): an unknown flag
// comes with the nearest one fs takes ("did you mean --runs?"), and a long
// option typed with one dash with the two it needs.
func ParseError(fs *pflag.FlagSet, err error) error {
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
	)
	switch {
	case errors.As(err, &notExist):
		return cli.Usage(unknownFlag(fs, notExist))
	case errors.As(err, &invalid):
		why := err.Error()
		if c := errors.Unwrap(invalid); c != nil {
			why = c.Error()
		}
		return cli.Usage(fmt.Errorf("--%s %q: %s", invalid.GetFlag().Name, invalid.GetValue(), why))
	}
	return cli.Usage(err)
}

// unknownFlag says which flag typed fs does not take, and what to type.
func unknownFlag(fs *pflag.FlagSet, e *pflag.NotExistError) error {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	lists := fs.Name() + " --help all lists every option"
	if group := e.GetSpecifiedShortnames(); group != "" {
		// -runs: pflag reads shorthands r, u, n, s.
		if f := fs.Lookup(group); f != nil && len(group) > 1 {
			return fmt.Errorf("-%s: a long option takes two dashes: --%s", group, group)
		}
		if s := spell.Nearest(group, names); s != "" && len(group) > 1 {
			return fmt.Errorf("unknown option -%s; did you mean --%s?", group, s)
		}
		if len(group) == 1 {
			return fmt.Errorf("unknown option -%s (%s)", group, lists)
		}
		return fmt.Errorf("unknown option -%s in -%s (%s)", e.GetSpecifiedName(), group, lists)
	}
	typed := e.GetSpecifiedName()
	if s := spell.Nearest(typed, names); s != "" {
		return fmt.Errorf("unknown option --%s; did you mean --%s?", typed, s)
	}
	return fmt.Errorf("unknown option --%s (%s)", typed, lists)
}
