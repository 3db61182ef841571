package mock

// Keywords of the table dialect. The lexer looks each bare word up once,
// so the parser compares small integers instead of strings.

type keyword uint8

const (
	kwNone keyword = iota
	kwAll
	kwAnd
	kwAs
	kwAsc
	kwAvg
	kwBetween
	kwBy
	kwCount
	kwCross
	kwDefault
	kwDelete
	kwDesc
	kwDistinct
	kwDistinctrow
	kwFor
	kwFrom
	kwGroup
	kwHaving
	kwHighPriority
	kwIgnore
	kwIn
	kwInner
	kwInsert
	kwInto
	kwJoin
	kwLeft
	kwLimit
	kwLock
	kwLowPriority
	kwMax
	kwMin
	kwMode
	kwNatural
	kwNot
	kwNull
	kwOffset
	kwOn
	kwOr
	kwOrder
	kwProcedure
	kwReplace
	kwRight
	kwSelect
	kwSet
	kwShare
	kwSqlCache
	kwSqlCalcFoundRows
	kwSqlNoCache
	kwStraightJoin
	kwSum
	kwUnion
	kwUpdate
	kwUsing
	kwValue
	kwValues
	kwWhere
	kwWindow
	numKeywords
)

var keywordNames = [numKeywords]string{
	kwAll:              "ALL",
	kwAnd:              "AND",
	kwAs:               "AS",
	kwAsc:              "ASC",
	kwAvg:              "AVG",
	kwBetween:          "BETWEEN",
	kwBy:               "BY",
	kwCount:            "COUNT",
	kwCross:            "CROSS",
	kwDefault:          "DEFAULT",
	kwDelete:           "DELETE",
	kwDesc:             "DESC",
	kwDistinct:         "DISTINCT",
	kwDistinctrow:      "DISTINCTROW",
	kwFor:              "FOR",
	kwFrom:             "FROM",
	kwGroup:            "GROUP",
	kwHaving:           "HAVING",
	kwHighPriority:     "HIGH_PRIORITY",
	kwIgnore:           "IGNORE",
	kwIn:               "IN",
	kwInner:            "INNER",
	kwInsert:           "INSERT",
	kwInto:             "INTO",
	kwJoin:             "JOIN",
	kwLeft:             "LEFT",
	kwLimit:            "LIMIT",
	kwLock:             "LOCK",
	kwLowPriority:      "LOW_PRIORITY",
	kwMax:              "MAX",
	kwMin:              "MIN",
	kwMode:             "MODE",
	kwNatural:          "NATURAL",
	kwNot:              "NOT",
	kwNull:             "NULL",
	kwOffset:           "OFFSET",
	kwOn:               "ON",
	kwOr:               "OR",
	kwOrder:            "ORDER",
	kwProcedure:        "PROCEDURE",
	kwReplace:          "REPLACE",
	kwRight:            "RIGHT",
	kwSelect:           "SELECT",
	kwSet:              "SET",
	kwShare:            "SHARE",
	kwSqlCache:         "SQL_CACHE",
	kwSqlCalcFoundRows: "SQL_CALC_FOUND_ROWS",
	kwSqlNoCache:       "SQL_NO_CACHE",
	kwStraightJoin:     "STRAIGHT_JOIN",
	kwSum:              "SUM",
	kwUnion:            "UNION",
	kwUpdate:           "UPDATE",
	kwUsing:            "USING",
	kwValue:            "VALUE",
	kwValues:           "VALUES",
	kwWhere:            "WHERE",
	kwWindow:           "WINDOW",
}

// reservedWords end a select item or a table reference instead of naming it.
var reservedWords = [numKeywords]bool{
	kwFrom:      true,
	kwWhere:     true,
	kwOrder:     true,
	kwLimit:     true,
	kwFor:       true,
	kwLock:      true,
	kwGroup:     true,
	kwHaving:    true,
	kwUnion:     true,
	kwSet:       true,
	kwValues:    true,
	kwValue:     true,
	kwAnd:       true,
	kwOr:        true,
	kwNot:       true,
	kwBetween:   true,
	kwIn:        true,
	kwOn:        true,
	kwJoin:      true,
	kwInner:     true,
	kwLeft:      true,
	kwRight:     true,
	kwCross:     true,
	kwNatural:   true,
	kwUsing:     true,
	kwInto:      true,
	kwProcedure: true,
	kwWindow:    true,
	kwOffset:    true,
	kwAsc:       true,
	kwDesc:      true,
}

// maxKeywordLen is the longest keyword's length.
const maxKeywordLen = 19

// keywordSlots is an open-addressing table of the keywords by kwHash:
// cheaper than a map for the few short words a statement holds.
var keywordSlots = func() (t [256]keyword) {
	for k, name := range keywordNames {
		if name == "" {
			continue
		}
		i := kwHash([]byte(name))
		for t[i] != kwNone {
			i++
		}
		t[i] = keyword(k)
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
// kwNone, without allocating.
func lookupKeyword(word []byte) keyword {
	if len(word) < 2 || len(word) > maxKeywordLen {
		return kwNone
	}
	var buf [maxKeywordLen]byte
	up := buf[:len(word)]
	for i, c := range word {
		up[i] = upper(c)
	}
	for i := kwHash(up); keywordSlots[i] != kwNone; i++ {
		if k := keywordSlots[i]; keywordNames[k] == string(up) {
			return k
		}
	}
	return kwNone
}
