package sqlread

import "bytes"

// Class is how the mock answers a statement.
type Class uint8

const (
	ClassSyntax      Class = iota // not a statement: ERR 1064
	ClassOK                       // BEGIN, COMMIT, SET, DDL...: OK
	ClassTable                    // SELECT ... FROM a table, UPDATE, DELETE, INSERT, REPLACE
	ClassExpr                     // SELECT without a table (or FROM DUAL): evaluated
	ClassUnion                    // SELECTs without a table joined by UNION
	ClassShow                     // SHOW ...
	ClassUse                      // USE db
	ClassEmpty                    // nothing but blanks and comments: ERR 1065
	ClassSystemTable              // a table of mysql, sys, information_schema...: ERR 1146
	ClassUnsupported              // a statement mysqld knows and the mock does not run: ERR 1235
)

// Statement is what Classify finds.
type Statement struct {
	Class Class
	// First is the statement's first word, after any opening parentheses.
	First Token
	// Schema and Table name the table of a ClassSystemTable, backquotes
	// removed.
	Schema, Table Span
}

// classOf is the class of a statement by its first keyword; the zero
// class is a syntax error. SELECT is looked at further.
var classOf = func() (t [numKeywords]Class) {
	for _, k := range []Keyword{KwInsert, KwUpdate, KwDelete, KwReplace,
		// Statements the table dialect does not take: its syntax error.
		KwWith, KwValues, KwTable} {
		t[k] = ClassTable
	}
	// They change nothing a benchmark reads back (sysbench's prepare and
	// cleanup, transactions, session settings).
	for _, k := range []Keyword{KwBegin, KwCommit, KwRollback, KwStart, KwSet, KwSavepoint, KwRelease, KwXa,
		KwDo, KwLock, KwUnlock, KwFlush, KwCreate, KwDrop, KwAlter, KwTruncate, KwRename, KwAnalyze, KwOptimize,
		KwGrant, KwRevoke, KwKill, KwReset} {
		t[k] = ClassOK
	}
	// mysqld runs them; the mock gives ER_NOT_SUPPORTED_YET rather than a
	// made-up answer.
	for _, k := range []Keyword{KwExplain, KwDescribe, KwDesc, KwCall, KwHandler, KwLoad, KwPrepare,
		KwExecute, KwDeallocate, KwHelp, KwCheck, KwChecksum, KwRepair, KwInstall, KwUninstall, KwImport,
		KwChange, KwPurge, KwBinlog, KwCache, KwShutdown, KwRestart, KwClone, KwGet, KwSignal, KwResignal} {
		t[k] = ClassUnsupported
	}
	t[KwShow], t[KwUse] = ClassShow, ClassUse
	return t
}()

// systemSchemas hold tables every mysqld has and the mock does not.
var systemSchemas = []string{"MYSQL", "SYS", "INFORMATION_SCHEMA", "PERFORMANCE_SCHEMA"}

// Classify reads sql's first word and, for a SELECT, whether a FROM at its
// top level names a table and whether a UNION joins it, without
// allocating: the point select comes through here on every request.
// Parentheses around the whole statement are looked through.
func Classify(sql []byte) Statement {
	var l Lexer
	l.Init(sql)
	lead := 0
	for l.AcceptOp('(') {
		lead++
	}
	st := Statement{First: l.Tok}
	switch {
	case l.Tok.Kind == TokEOF:
		st.Class = ClassEmpty
	case l.Tok.Kind != TokIdent || l.Tok.Quoted:
		st.Class = ClassSyntax
	case l.Tok.Kw == KwSelect:
		classifySelect(&l, lead, &st)
	default:
		st.Class = classOf[l.Tok.Kw]
	}
	return st
}

// classifySelect walks a SELECT at the depth of its opening parentheses
// for FROM (a table, DUAL or a system table) and, at depth 0, UNION.
func classifySelect(l *Lexer, lead int, st *Statement) {
	depth, from, union := lead, false, false
	for l.Next(); l.Tok.Kind != TokEOF; l.Next() {
		switch {
		case l.IsOp('('):
			depth++
		case l.IsOp(')'):
			depth--
		case l.Is(KwUnion) && depth == 0:
			union = true
		case l.Is(KwFrom) && depth == lead && !from:
			from = true
			for l.Next(); l.IsOp('('); l.Next() {
			}
			switch {
			case l.Is(KwDual):
				continue
			case systemTable(l, st):
				st.Class = ClassSystemTable
				return
			}
			st.Class = ClassTable
			return
		}
	}
	st.Class = ClassExpr
	if union {
		st.Class = ClassUnion
	}
}

// systemTable reports whether the table reference at l is schema.table
// for one of the system schemas, and notes the names in st.
func systemTable(l *Lexer, st *Statement) bool {
	if l.Tok.Kind != TokIdent {
		return false
	}
	schema := l.Name(l.Tok)
	name := schema.Of(l.Src)
	found := false
	for _, s := range systemSchemas {
		found = found || len(name) == len(s) && bytes.EqualFold(name, []byte(s))
	}
	if !found {
		return false
	}
	l.Next()
	if !l.IsOp('.') {
		return false
	}
	l.Next()
	st.Schema = schema
	if l.Tok.Kind == TokIdent {
		st.Table = l.Name(l.Tok)
	}
	return true
}
