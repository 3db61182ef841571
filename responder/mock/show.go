package mock

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// sysVars are the system variables connectors, pools and proxy monitors
// read, with the values of a default MySQL 8.0 server with utf8mb4 (the
// greeting's collation 45). An int value is served as an integer column,
// as mysqld serves @@autocommit; the rest are strings. Values that depend on
// the configuration are filled in by Server.sysVar.
var sysVars = map[string]sqlread.Value{
	"auto_increment_increment": intVal(1),
	"auto_increment_offset":    intVal(1),
	"autocommit":               intVal(1),
	"character_set_client":     strVal("utf8mb4"),
	"character_set_connection": strVal("utf8mb4"),
	"character_set_database":   strVal("utf8mb4"),
	"character_set_filesystem": strVal("binary"),
	"character_set_results":    strVal("utf8mb4"),
	"character_set_server":     strVal("utf8mb4"),
	"character_set_system":     strVal("utf8mb3"),
	"collation_connection":     strVal("utf8mb4_general_ci"),
	"collation_database":       strVal("utf8mb4_general_ci"),
	"collation_server":         strVal("utf8mb4_general_ci"),
	"default_storage_engine":   strVal("InnoDB"),
	"div_precision_increment":  intVal(4),
	"error_count":              intVal(0),
	"foreign_key_checks":       intVal(1),
	"group_concat_max_len":     intVal(1024),
	"have_ssl":                 strVal("DISABLED"),
	"init_connect":             strVal(""),
	"innodb_read_only":         intVal(0),
	"interactive_timeout":      intVal(28800),
	"last_insert_id":           intVal(0),
	"lc_time_names":            strVal("en_US"),
	"license":                  strVal("GPL"),
	"log_bin":                  intVal(0),
	"lower_case_table_names":   intVal(0),
	"max_connections":          intVal(151),
	"net_buffer_length":        intVal(16384),
	"net_read_timeout":         intVal(30),
	"net_write_timeout":        intVal(60),
	"performance_schema":       intVal(0),
	"protocol_version":         intVal(10),
	"query_cache_size":         intVal(0),
	"query_cache_type":         strVal("OFF"),
	"read_only":                intVal(0),
	"server_id":                intVal(1),
	"sql_auto_is_null":         intVal(0),
	"sql_mode":                 strVal("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"),
	"sql_select_limit":         {Kind: sqlread.Uint, I: -1},
	"super_read_only":          intVal(0),
	"time_zone":                strVal("SYSTEM"),
	"transaction_isolation":    strVal("REPEATABLE-READ"),
	"transaction_read_only":    intVal(0),
	"tx_isolation":             strVal("REPEATABLE-READ"),
	"tx_read_only":             intVal(0),
	"unique_checks":            intVal(1),
	"version_comment":          strVal("hoplat mock mysqld"),
	"version_compile_machine":  strVal("x86_64"),
	"version_compile_os":       strVal("Linux"),
	"wait_timeout":             intVal(28800),
	"warning_count":            intVal(0),
	// Filled in per Server or connection.
	"connect_timeout":    {},
	"hostname":           {},
	"max_allowed_packet": {},
	"system_time_zone":   {},
	"version":            {},
}

func intVal(n int64) sqlread.Value  { return sqlread.IntValue(n) }
func strVal(s string) sqlread.Value { return sqlread.StringValue(s) }

// sysVar returns a system variable's value for this connection.
func (c *serverConn) sysVar(name string) (sqlread.Value, bool) {
	v, ok := sysVars[name]
	if !ok {
		return sqlread.Value{}, false
	}
	cfg := &c.s.cfg
	switch name {
	case "version":
		return strVal(cfg.Version), true
	case "max_allowed_packet":
		return intVal(int64(cfg.MaxAllowedPacket)), true
	case "connect_timeout":
		if cfg.ConnectTimeout < 0 {
			return intVal(31536000), true // mysqld's largest
		}
		return intVal(int64((cfg.ConnectTimeout + time.Second - 1) / time.Second)), true
	case "hostname":
		return strVal(c.s.hostname), true
	case "system_time_zone":
		zone, _ := time.Now().Zone()
		return strVal(zone), true
	}
	return v, true
}

// showQuery answers SHOW VARIABLES, STATUS, DATABASES, [FULL] TABLES,
// WARNINGS and ERRORS, each with an optional LIKE pattern; other SHOW statements get
// ER_NOT_SUPPORTED_YET when mysqld has them and ER_PARSE_ERROR when not.
func (c *serverConn) showQuery(sql []byte) error {
	var l sqlread.Lexer
	l.Init(sql)
	l.Accept(sqlread.KwShow)
	full := l.Accept(sqlread.KwFull)
	_ = l.Accept(sqlread.KwGlobal) || l.Accept(sqlread.KwSession) || l.Accept(sqlread.KwLocal)
	var names []string
	var rows [][]sqlread.Value
	switch {
	case l.Accept(sqlread.KwVariables):
		names = []string{"Variable_name", "Value"}
		for _, name := range slices.Sorted(maps.Keys(sysVars)) {
			v, _ := c.sysVar(name)
			rows = append(rows, []sqlread.Value{strVal(name), strVal(v.Text())})
		}
	case l.Accept(sqlread.KwStatus):
		names = []string{"Variable_name", "Value"}
		for _, kv := range c.s.status() {
			rows = append(rows, []sqlread.Value{strVal(kv[0]), strVal(kv[1])})
		}
	case l.Accept(sqlread.KwDatabases), l.Accept(sqlread.KwSchemas):
		names = []string{"Database"}
		dbs := []string{"information_schema", "sbtest"}
		if c.db != "" && !slices.Contains(dbs, c.db) {
			dbs = append(dbs, c.db)
			slices.Sort(dbs)
		}
		for _, db := range dbs {
			rows = append(rows, []sqlread.Value{strVal(db)})
		}
	case l.Accept(sqlread.KwTables):
		if c.db == "" {
			return c.sendErr(ErNoDBSelected, "3D000", "No database selected")
		}
		names = []string{"Tables_in_" + c.db}
		if full {
			names = append(names, "Table_type")
		}
		for _, t := range c.s.tableNames {
			row := []sqlread.Value{strVal(t)}
			if full {
				row = append(row, strVal("BASE TABLE"))
			}
			rows = append(rows, row)
		}
	case l.Accept(sqlread.KwWarnings), l.Accept(sqlread.KwErrors):
		// The mock raises neither.
		cols := []wire.ColumnDef{
			{Name: []byte("Level"), Charset: wire.ClientCharsetUTF8MB4, Length: 28, ColType: wire.TypeVarString, Flags: wire.FlagNotNull},
			{Name: []byte("Code"), Charset: 63, Length: 4, ColType: wire.TypeLong, Flags: wire.FlagNotNull | wire.FlagUnsigned | wire.FlagBinary},
			{Name: []byte("Message"), Charset: wire.ClientCharsetUTF8MB4, Length: 2048, ColType: wire.TypeVarString, Flags: wire.FlagNotNull},
		}
		return c.writeRows(cols, nil)
	default:
		if l.Tok.Kind == sqlread.TokIdent && !l.Tok.Quoted {
			word := strings.ToUpper(string(l.Tok.Of(sql)))
			if slices.Contains(showUnsupported, word) {
				return c.sendErr(wire.ErNotSupportedYet, "42000", fmt.Sprintf("This version of MySQL doesn't yet support 'SHOW %s' (a mock mysqld)", word))
			}
		}
		return c.sendServerError(sqlread.SyntaxError(l.Rest()))
	}
	switch {
	case l.Is(sqlread.KwLike):
		r := l.Rest()
		l.Next()
		if l.Tok.Kind != sqlread.TokString {
			return c.sendServerError(sqlread.SyntaxError(r))
		}
		pat := string(l.StringOf(nil, l.Tok))
		if l.Next(); !atShowEnd(&l) {
			return c.sendServerError(sqlread.SyntaxError(r))
		}
		rows = slices.DeleteFunc(rows, func(row []sqlread.Value) bool { return !likeMatch(pat, row[0].S) })
		if strings.HasPrefix(names[0], "Tables_in_") {
			names[0] += " (" + pat + ")" // as mysqld names it
		}
	case l.Is(sqlread.KwWhere):
		return c.sendErr(wire.ErNotSupportedYet, "42000", "This version of MySQL doesn't yet support 'SHOW ... WHERE' (a mock mysqld)")
	default:
		if !atShowEnd(&l) {
			return c.sendServerError(sqlread.SyntaxError(l.Rest()))
		}
	}
	cols := make([]wire.ColumnDef, len(names))
	for i, n := range names {
		cols[i] = wire.ColumnDef{Name: []byte(n), OrgName: []byte(n), Charset: wire.ClientCharsetUTF8MB4, Length: 1024, ColType: wire.TypeVarString, Flags: wire.FlagNotNull}
	}
	return c.writeRows(cols, rows)
}

// atShowEnd takes a SHOW statement's end, any number of ';', and reports
// whether nothing follows.
func atShowEnd(l *sqlread.Lexer) bool {
	for l.AcceptOp(';') {
	}
	return l.Tok.Kind == sqlread.TokEOF
}

// showUnsupported are the SHOW statements mysqld has and the mock does not.
var showUnsupported = []string{"COLUMNS", "FIELDS", "INDEX", "INDEXES", "KEYS", "CREATE", "ENGINES", "ENGINE",
	"PROCESSLIST", "GRANTS", "PLUGINS", "PRIVILEGES", "MASTER", "SLAVE", "REPLICA", "REPLICAS", "BINARY",
	"BINLOG", "CHARACTER", "CHARSET", "COLLATION", "OPEN", "TABLE", "TRIGGERS", "EVENTS", "PROFILE", "PROFILES",
	"FUNCTION", "PROCEDURE", "COUNT", "ERRORS", "STORAGE", "RELAYLOG"}

// likeMatch is SQL LIKE, case-insensitive as under a _ci collation: '%'
// matches any run, '_' one character, '\' escapes.
func likeMatch(pat, s string) bool {
	pat, s = strings.ToLower(pat), strings.ToLower(s)
	for len(pat) > 0 {
		switch pat[0] {
		case '%':
			for i := 0; i <= len(s); i++ {
				if likeMatch(pat[1:], s[i:]) {
					return true
				}
			}
			return false
		case '_':
			if len(s) == 0 {
				return false
			}
			pat, s = pat[1:], s[1:]
			continue
		case '\\':
			if len(pat) > 1 {
				pat = pat[1:]
			}
		}
		if len(s) == 0 || s[0] != pat[0] {
			return false
		}
		pat, s = pat[1:], s[1:]
	}
	return len(s) == 0
}

// status is what SHOW STATUS and COM_STATISTICS report.
func (s *Server) status() [][2]string {
	up := int64(time.Since(s.started) / time.Second)
	q := s.questions.Load()
	return [][2]string{
		{"Aborted_connects", "0"},
		{"Connections", strconv.FormatUint(uint64(s.connIDs.Load()), 10)},
		{"Open_tables", "0"},
		{"Opened_tables", "0"},
		{"Queries", strconv.FormatUint(q, 10)},
		{"Questions", strconv.FormatUint(q, 10)},
		{"Slow_queries", "0"},
		{"Threads_connected", strconv.FormatInt(s.threads.Load(), 10)},
		{"Threads_running", "1"},
		{"Uptime", strconv.FormatInt(up, 10)},
	}
}

// statistics is COM_STATISTICS's reply, in mysqld's words.
func (s *Server) statistics() string {
	up := max(time.Since(s.started).Seconds(), 1)
	q := s.questions.Load()
	return fmt.Sprintf("Uptime: %d  Threads: %d  Questions: %d  Slow queries: 0  Opens: 0  Open tables: 0  Queries per second avg: %.3f",
		int64(up), s.threads.Load(), q, float64(q)/up)
}
