package sqlread

// Keywords of the dialect the mock reads. The lexer looks each bare word up
// once, so parsers compare small integers instead of strings; a keyword is
// still a name wherever a parser does not reserve it.

// Keyword is a bare word's keyword, or KwNone.
type Keyword uint8

const (
	KwNone Keyword = iota
	KwAll
	KwAlter
	KwAnalyze
	KwAnd
	KwAs
	KwAsc
	KwAvg
	KwBegin
	KwBetween
	KwBinlog
	KwBy
	KwCache
	KwCall
	KwChange
	KwCheck
	KwChecksum
	KwClone
	KwCommit
	KwCount
	KwCreate
	KwCross
	KwDatabases
	KwDeallocate
	KwDefault
	KwDelete
	KwDesc
	KwDescribe
	KwDistinct
	KwDistinctrow
	KwDiv
	KwDo
	KwDrop
	KwDual
	KwErrors
	KwExecute
	KwExplain
	KwFlush
	KwFor
	KwFrom
	KwFull
	KwGet
	KwGlobal
	KwGrant
	KwGroup
	KwHandler
	KwHaving
	KwHelp
	KwHighPriority
	KwIgnore
	KwImport
	KwIn
	KwInner
	KwInsert
	KwInstall
	KwInto
	KwJoin
	KwKill
	KwLeft
	KwLike
	KwLimit
	KwLoad
	KwLocal
	KwLock
	KwLowPriority
	KwMax
	KwMin
	KwMod
	KwMode
	KwNatural
	KwNot
	KwNull
	KwOffset
	KwOn
	KwOptimize
	KwOr
	KwOrder
	KwPrepare
	KwProcedure
	KwPurge
	KwRelease
	KwRename
	KwRepair
	KwReplace
	KwReset
	KwResignal
	KwRestart
	KwRevoke
	KwRight
	KwRollback
	KwSavepoint
	KwSchemas
	KwSelect
	KwSession
	KwSet
	KwShare
	KwShow
	KwShutdown
	KwSignal
	KwSqlCache
	KwSqlCalcFoundRows
	KwSqlNoCache
	KwStart
	KwStatus
	KwStraightJoin
	KwSum
	KwTable
	KwTables
	KwTruncate
	KwUninstall
	KwUnion
	KwUnlock
	KwUpdate
	KwUse
	KwUsing
	KwValue
	KwValues
	KwVariables
	KwWarnings
	KwWhere
	KwWindow
	KwWith
	KwXa
	numKeywords
)

var keywordNames = [numKeywords]string{
	KwAll:              "ALL",
	KwAlter:            "ALTER",
	KwAnalyze:          "ANALYZE",
	KwAnd:              "AND",
	KwAs:               "AS",
	KwAsc:              "ASC",
	KwAvg:              "AVG",
	KwBegin:            "BEGIN",
	KwBetween:          "BETWEEN",
	KwBinlog:           "BINLOG",
	KwBy:               "BY",
	KwCache:            "CACHE",
	KwCall:             "CALL",
	KwChange:           "CHANGE",
	KwCheck:            "CHECK",
	KwChecksum:         "CHECKSUM",
	KwClone:            "CLONE",
	KwCommit:           "COMMIT",
	KwCount:            "COUNT",
	KwCreate:           "CREATE",
	KwCross:            "CROSS",
	KwDatabases:        "DATABASES",
	KwDeallocate:       "DEALLOCATE",
	KwDefault:          "DEFAULT",
	KwDelete:           "DELETE",
	KwDesc:             "DESC",
	KwDescribe:         "DESCRIBE",
	KwDistinct:         "DISTINCT",
	KwDistinctrow:      "DISTINCTROW",
	KwDiv:              "DIV",
	KwDo:               "DO",
	KwDrop:             "DROP",
	KwDual:             "DUAL",
	KwErrors:           "ERRORS",
	KwExecute:          "EXECUTE",
	KwExplain:          "EXPLAIN",
	KwFlush:            "FLUSH",
	KwFor:              "FOR",
	KwFrom:             "FROM",
	KwFull:             "FULL",
	KwGet:              "GET",
	KwGlobal:           "GLOBAL",
	KwGrant:            "GRANT",
	KwGroup:            "GROUP",
	KwHandler:          "HANDLER",
	KwHaving:           "HAVING",
	KwHelp:             "HELP",
	KwHighPriority:     "HIGH_PRIORITY",
	KwIgnore:           "IGNORE",
	KwImport:           "IMPORT",
	KwIn:               "IN",
	KwInner:            "INNER",
	KwInsert:           "INSERT",
	KwInstall:          "INSTALL",
	KwInto:             "INTO",
	KwJoin:             "JOIN",
	KwKill:             "KILL",
	KwLeft:             "LEFT",
	KwLike:             "LIKE",
	KwLimit:            "LIMIT",
	KwLoad:             "LOAD",
	KwLocal:            "LOCAL",
	KwLock:             "LOCK",
	KwLowPriority:      "LOW_PRIORITY",
	KwMax:              "MAX",
	KwMin:              "MIN",
	KwMod:              "MOD",
	KwMode:             "MODE",
	KwNatural:          "NATURAL",
	KwNot:              "NOT",
	KwNull:             "NULL",
	KwOffset:           "OFFSET",
	KwOn:               "ON",
	KwOptimize:         "OPTIMIZE",
	KwOr:               "OR",
	KwOrder:            "ORDER",
	KwPrepare:          "PREPARE",
	KwProcedure:        "PROCEDURE",
	KwPurge:            "PURGE",
	KwRelease:          "RELEASE",
	KwRename:           "RENAME",
	KwRepair:           "REPAIR",
	KwReplace:          "REPLACE",
	KwReset:            "RESET",
	KwResignal:         "RESIGNAL",
	KwRestart:          "RESTART",
	KwRevoke:           "REVOKE",
	KwRight:            "RIGHT",
	KwRollback:         "ROLLBACK",
	KwSavepoint:        "SAVEPOINT",
	KwSchemas:          "SCHEMAS",
	KwSelect:           "SELECT",
	KwSession:          "SESSION",
	KwSet:              "SET",
	KwShare:            "SHARE",
	KwShow:             "SHOW",
	KwShutdown:         "SHUTDOWN",
	KwSignal:           "SIGNAL",
	KwSqlCache:         "SQL_CACHE",
	KwSqlCalcFoundRows: "SQL_CALC_FOUND_ROWS",
	KwSqlNoCache:       "SQL_NO_CACHE",
	KwStart:            "START",
	KwStatus:           "STATUS",
	KwStraightJoin:     "STRAIGHT_JOIN",
	KwSum:              "SUM",
	KwTable:            "TABLE",
	KwTables:           "TABLES",
	KwTruncate:         "TRUNCATE",
	KwUninstall:        "UNINSTALL",
	KwUnion:            "UNION",
	KwUnlock:           "UNLOCK",
	KwUpdate:           "UPDATE",
	KwUse:              "USE",
	KwUsing:            "USING",
	KwValue:            "VALUE",
	KwValues:           "VALUES",
	KwVariables:        "VARIABLES",
	KwWarnings:         "WARNINGS",
	KwWhere:            "WHERE",
	KwWindow:           "WINDOW",
	KwWith:             "WITH",
	KwXa:               "XA",
}

// String is the keyword as SQL spells it.
func (k Keyword) String() string {
	if k >= numKeywords {
		return ""
	}
	return keywordNames[k]
}

// maxKeywordLen is the longest keyword's length.
const maxKeywordLen = 19

// keywordSlots is an open-addressing table of the keywords by kwHash:
// cheaper than a map for the few short words a statement holds.
var keywordSlots = func() (t [256]Keyword) {
	for k, name := range keywordNames {
		if name == "" {
			continue
		}
		i := kwHash([]byte(name))
		for t[i] != KwNone {
			i++
		}
		t[i] = Keyword(k)
	}
	return t
}()

// kwHash hashes an upper-case word to a slot.
func kwHash(up []byte) uint8 {
	h := uint32(len(up))
	for _, c := range up {
		h = h*31 + uint32(c)
	}
	return uint8(h ^ h>>8)
}

// lookupKeyword returns the keyword word spells, case-insensitively, or
// KwNone, without allocating.
func lookupKeyword(word []byte) Keyword {
	if len(word) < 2 || len(word) > maxKeywordLen {
		return KwNone
	}
	var buf [maxKeywordLen]byte
	up := buf[:len(word)]
	for i, c := range word {
		up[i] = upper(c)
	}
	for i := kwHash(up); keywordSlots[i] != KwNone; i++ {
		if k := keywordSlots[i]; keywordNames[k] == string(up) {
			return k
		}
	}
	return KwNone
}
