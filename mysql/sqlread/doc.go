// Package sqlread reads the SQL the mock mysqld is sent: one lexer that works
// in place over a statement's text (a token is a span of it, so reading the
// point select allocates nothing), the keywords as small integers, the Value
// every literal, placeholder and result is, and Classify, which names the
// statement a text or prepared command holds. It imports wire (for mysqld's
// parse error) and the standard library only.
package sqlread
