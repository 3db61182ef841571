package sbtable

import (
	"math/bits"
	"strconv"
)

// Column is one of a sysbench table's four columns.
type Column uint8

// The columns, in the order `SELECT *` returns them.
const (
	ID Column = iota
	K
	C
	Pad
	NumColumns
)

var names = [NumColumns]string{"id", "k", "c", "pad"}

// String is the column's name.
func (c Column) String() string { return names[c] }

// Lookup finds a column by name, case-insensitively as MySQL compares
// column names.
func Lookup(name []byte) (Column, bool) {
	for c, n := range names {
		if len(name) == len(n) && equalFold(name, n) {
			return Column(c), true
		}
	}
	return 0, false
}

func equalFold(b []byte, s string) bool {
	for i := range len(s) {
		x := b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != s[i] {
			return false
		}
	}
	return true
}

// Widths of the values sysbench writes: c is ten groups of eleven digits
// joined by '-', pad five; CHAR columns come back without trailing spaces,
// so one byte short of the declared width.
const (
	CLen   = 10*12 - 1
	PadLen = 5*12 - 1
	// CWidth and PadWidth are the declared CHAR widths.
	CWidth   = 120
	PadWidth = 60
)

// Table is sbtestN with ids 1..Size.
type Table struct {
	N    int   // the table's number: 1 for sbtest1
	Size int64 // rows, ids 1..Size
	Seed uint64
}

// Has reports whether the prepared table holds id.
func (t Table) Has(id int64) bool { return 1 <= id && id <= t.Size }

// mix is splitmix64's finaliser, a bijection that spreads every input bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// stream is the first random word of column col of row id.
func (t Table) stream(id int64, col Column) uint64 {
	return mix(t.Seed ^ mix(uint64(t.N)<<40^uint64(id)<<2^uint64(col)))
}

// next advances a splitmix64 stream.
func next(x uint64) uint64 { return x + 0x9e3779b97f4a7c15 }

// K is row id's k, uniform in 1..Size as sysbench's uniform generator
// draws it.
func (t Table) K(id int64) int64 {
	if t.Size <= 0 {
		return 0
	}
	return 1 + int64(mix(t.stream(id, K))%uint64(t.Size))
}

// word is the random word behind the g-th eleven-digit group of a string
// column.
func (t Table) word(id int64, col Column, g int) uint64 {
	return mix(next(t.stream(id, col)) + uint64(g)*0x9e3779b97f4a7c15)
}

// digits turns a random word into eleven decimal digits without a
// division: each pair of digits is the integer part of the word's fraction
// times a hundred (the high half of a 64x64 multiplication), the rest of
// it carried on.
func digits(x uint64, d *[11]byte) {
	for i := 0; i < 10; i += 2 {
		hi, lo := bits.Mul64(x, 100)
		d[i], d[i+1] = pairs[2*hi], pairs[2*hi+1]
		x = lo
	}
	hi, _ := bits.Mul64(x, 10)
	d[10] = '0' + byte(hi)
}

// pairs holds "00" through "99".
var pairs = func() (p [200]byte) {
	for i := range 100 {
		p[2*i], p[2*i+1] = '0'+byte(i/10), '0'+byte(i%10)
	}
	return p
}()

func groups(col Column) int {
	if col == C {
		return 10
	}
	return 5
}

// AppendC appends row id's c.
func (t Table) AppendC(b []byte, id int64) []byte { return t.appendString(b, id, C) }

// AppendPad appends row id's pad.
func (t Table) AppendPad(b []byte, id int64) []byte { return t.appendString(b, id, Pad) }

func (t Table) appendString(b []byte, id int64, col Column) []byte {
	var d [11]byte
	x := next(t.stream(id, col))
	for g := range groups(col) {
		if g > 0 {
			b = append(b, '-')
		}
		digits(mix(x+uint64(g)*0x9e3779b97f4a7c15), &d)
		b = append(b, d[:]...)
	}
	return b
}

// Prefix is the first digit group of c or pad as a number: the value
// MySQL converts the string to when it compares it with a number, and a
// sort key that orders strings of the same shape as their text does
// (ties are broken by the full text).
func (t Table) Prefix(id int64, col Column) uint64 {
	var d [11]byte
	digits(t.word(id, col, 0), &d)
	var n uint64
	for _, c := range d {
		n = n*10 + uint64(c-'0')
	}
	return n
}

// AppendText appends column col of row id as the text protocol sends it.
func (t Table) AppendText(b []byte, id int64, col Column) []byte {
	switch col {
	case ID:
		return strconv.AppendInt(b, id, 10)
	case K:
		return strconv.AppendInt(b, t.K(id), 10)
	}
	return t.appendString(b, id, col)
}

// Int is an integer column's value (id or k) of row id.
func (t Table) Int(id int64, col Column) int64 {
	if col == ID {
		return id
	}
	return t.K(id)
}
