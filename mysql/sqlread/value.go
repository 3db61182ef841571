package sqlread

import (
	"strconv"
	"time"
)

// Kind is a value's SQL type, which fixes its column definition and its
// binary-protocol encoding, or what a statement's operand stands for.
type Kind uint8

const (
	Null     Kind = iota // SQL NULL; also the zero Value
	Int                  // a signed integer in I
	Uint                 // an unsigned integer, its bits in I
	Decimal              // a DECIMAL: its text in S, Scale decimals
	String               // a string: S, or for a literal of a statement its text Lit
	DateTime             // a DATETIME: T, its text in S
	Param                // a ? placeholder: I is its index among the statement's
	Default              // DEFAULT, in an INSERT or UPDATE
)

// Value is a literal, a placeholder or DEFAULT as a statement holds it, or
// a value an expression gives.
type Value struct {
	Kind Kind
	// Escaped marks a String literal whose Lit holds backslash escapes
	// or doubled quotes (see Unescape).
	Escaped bool
	// Narrow marks an integer MariaDB types INT rather than BIGINT: a
	// literal of at most nine characters, SLEEP().
	Narrow bool
	// NotNull marks a value mysqld knows cannot be NULL (SLEEP() of a
	// non-NULL argument).
	NotNull bool
	// Scale is the number of decimals of a Decimal.
	Scale int32
	// Width is the value's display width in characters where mysqld
	// takes it from the text (a literal, its negation, SLEEP()'s 1); 0
	// means the type's full width.
	Width int32
	I     int64
	// Lit is a String literal's text between its quotes, in the
	// statement: reading one allocates nothing.
	Lit Span
	S   string
	T   time.Time
}

// IntValue is the integer n.
func IntValue(n int64) Value { return Value{Kind: Int, I: n} }

// StringValue is the string s.
func StringValue(s string) Value { return Value{Kind: String, S: s} }

// Text is v's value as text (an integer in decimal), for a value an
// expression gave; a literal's text is in its statement (Lit).
func (v Value) Text() string {
	switch v.Kind {
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Uint:
		return strconv.FormatUint(uint64(v.I), 10)
	}
	return v.S
}

// String is Text, so that a Value prints as its SQL text.
func (v Value) String() string { return v.Text() }

// IsNumeric reports whether v is a number.
func (v Value) IsNumeric() bool { return v.Kind == Int || v.Kind == Uint || v.Kind == Decimal }
