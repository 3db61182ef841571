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
	// Route is where a read/write-splitting router sends the statement.
	Route Route
}

// Route is where a router that splits reads from writes (hoprelay --route
// rw) sends a statement: a read any replica may answer, or the primary.
type Route uint8

const (
	// RouteWrite is anything that may change data, take a lock, or read
	// what only the server that ran the session's last statement knows:
	// the primary's.
	RouteWrite Route = iota
	// RouteRead is a SELECT without INTO, FOR UPDATE, FOR SHARE, LOCK IN
	// SHARE MODE, a := assignment or a function whose answer is one
	// server's session state (LAST_INSERT_ID, FOUND_ROWS, GET_LOCK...),
	// or a SHOW: any replica answers it as the primary would.
	RouteRead
	// RouteSession changes session state (SET, USE): every server the
	// session uses must run it.
	RouteSession
	// RouteBegin starts a transaction that may write: BEGIN, START
	// TRANSACTION [READ WRITE].
	RouteBegin
	// RouteBeginReadOnly is START TRANSACTION READ ONLY: a replica may run
	// the whole transaction.
	RouteBeginReadOnly
	// RouteEnd ends a transaction: COMMIT, ROLLBACK (not ROLLBACK TO
	// SAVEPOINT).
	RouteEnd
)

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
		st.Route = routeSelect(&l)
	default:
		st.Class = classOf[l.Tok.Kw]
		st.Route = routeOf(&l)
	}
	return st
}

// routeOf is the route of a statement that is not a SELECT, the lexer on
// its first word.
func routeOf(l *Lexer) Route {
	switch l.Tok.Kw {
	case KwShow:
		return RouteRead
	case KwSet, KwUse:
		return RouteSession
	case KwBegin:
		return RouteBegin
	case KwCommit:
		return RouteEnd
	case KwRollback:
		// ROLLBACK [WORK] TO [SAVEPOINT] x keeps the transaction open.
		for l.Next(); l.Tok.Kind != TokEOF; l.Next() {
			if l.word("TO") {
				return RouteWrite
			}
		}
		return RouteEnd
	case KwStart:
		l.Next()
		if !l.word("TRANSACTION") {
			return RouteWrite // START SLAVE, START REPLICA...
		}
		// START TRANSACTION [mode [, mode]...]: READ ONLY, READ WRITE,
		// WITH CONSISTENT SNAPSHOT.
		for l.Next(); l.Tok.Kind != TokEOF; l.Next() {
			if l.word("READ") {
				if l.Next(); l.word("ONLY") {
					return RouteBeginReadOnly
				}
			}
		}
		return RouteBegin
	}
	return RouteWrite
}

// routeSelect reads on through a SELECT, from wherever classifySelect
// stopped (after its FROM, or at the end), for what makes it a write: the
// clauses that lock or write (INTO, FOR UPDATE, FOR SHARE, LOCK IN SHARE
// MODE), a := assignment, and calls whose answer belongs to the session on
// one server. Anything before the FROM was seen by classifySelect's walk,
// so the walk restarts from the text's start: a SELECT's list is short.
func routeSelect(l *Lexer) Route {
	l.Init(l.Src)
	for ; l.Tok.Kind != TokEOF; l.Next() {
		switch {
		case l.Is(KwInto), l.Is(KwLock):
			return RouteWrite
		case l.Is(KwFor):
			if l.Next(); l.Is(KwUpdate) || l.Is(KwShare) {
				return RouteWrite
			}
		case l.Tok.Kind == TokBad && l.Src[l.Tok.Start] == ':':
			// ':' starts no token of the dialect: := is an assignment.
			return RouteWrite
		case l.Tok.Kind == TokIdent && !l.Tok.Quoted && l.FollowedBy('(') && sessionFunc(l.Tok.Span.Of(l.Src)):
			return RouteWrite
		}
	}
	return RouteRead
}

// sessionFuncs answer from the session's state on the server that runs
// them (the last insert, the last statement's row counts, user locks, a
// sequence's next value), so a replica's answer would be wrong.
var sessionFuncs = []string{"LAST_INSERT_ID", "FOUND_ROWS", "ROW_COUNT", "GET_LOCK", "RELEASE_LOCK",
	"RELEASE_ALL_LOCKS", "IS_USED_LOCK", "IS_FREE_LOCK", "NEXTVAL", "SETVAL", "LASTVAL", "CONNECTION_ID"}

func sessionFunc(name []byte) bool {
	for _, f := range sessionFuncs {
		if len(name) == len(f) && bytes.EqualFold(name, []byte(f)) {
			return true
		}
	}
	return false
}

// word reports whether the current token is the bare word w (upper case),
// for the words of a statement that are not keywords of the mock's
// dialect.
func (l *Lexer) word(w string) bool {
	return l.Tok.Kind == TokIdent && !l.Tok.Quoted && len(l.Tok.Span.Of(l.Src)) == len(w) && bytes.EqualFold(l.Tok.Span.Of(l.Src), []byte(w))
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
