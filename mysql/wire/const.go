package wire

// Capability flags (MySQL Source Code Documentation, Capabilities Flags;
// MariaDB Knowledge Base, Connection).
const (
	CapLongPassword        = 0x00000001 // CLIENT_MYSQL; MariaDB clears it to announce extended caps
	CapLongFlag            = 0x00000004
	CapConnectWithDB       = 0x00000008
	CapProtocol41          = 0x00000200
	CapSSL                 = 0x00000800
	CapTransactions        = 0x00002000
	CapSecureConnection    = 0x00008000
	CapMultiStatements     = 0x00010000
	CapMultiResults        = 0x00020000
	CapPluginAuth          = 0x00080000
	CapConnectAttrs        = 0x00100000
	CapPluginAuthLenEnc    = 0x00200000
	CapSessionTrack        = 0x00800000
	CapDeprecateEOF        = 0x01000000
	CapOptionalMetadata    = 0x02000000
	CapQueryAttributes     = 0x08000000
	ClientWantedCaps       = CapLongFlag | CapProtocol41 | CapTransactions | CapSecureConnection | CapMultiResults | CapPluginAuth | CapPluginAuthLenEnc | CapDeprecateEOF
	ServerAdvertisedCaps   = CapLongPassword | CapLongFlag | CapConnectWithDB | CapProtocol41 | CapTransactions | CapSecureConnection | CapMultiResults | CapPluginAuth | CapConnectAttrs | CapPluginAuthLenEnc | CapDeprecateEOF
	ClientCharsetUTF8MB4   = 45 // utf8mb4_general_ci; MariaDB 10.11 does not know 255
	ServerStatusInTrans    = 0x0001
	ServerStatusAutocommit = 0x0002
	ServerMoreResults      = 0x0008
)

// MariaDB extended capabilities: bits 32-63 of the capability set, carried
// in a greeting's and a handshake response's reserved bytes when the
// capability set lacks CLIENT_MYSQL (MariaDB Knowledge Base, Connection).
const (
	// ExtCapExtendedMetadata says that column definitions carry extended
	// type information (a length-encoded block after the column's name).
	ExtCapExtendedMetadata = 0x00000008
	// ExtCapCacheMetadata says that a column-count packet carries one more
	// byte, 1 when column definitions follow and 0 when they are left out,
	// as a COM_STMT_EXECUTE's result leaves them out while the prepared
	// statement's columns have not changed since the client cached them.
	ExtCapCacheMetadata = 0x00000010
)

// Command bytes (MySQL Source Code Documentation, Text Protocol and
// Prepared Statements; MariaDB Knowledge Base, COM_* pages).
const (
	ComQuit             = 0x01
	ComInitDB           = 0x02
	ComQuery            = 0x03
	ComFieldList        = 0x04
	ComStatistics       = 0x09
	ComPing             = 0x0E
	ComChangeUser       = 0x11
	ComStmtPrepare      = 0x16
	ComStmtExecute      = 0x17
	ComStmtSendLongData = 0x18
	ComStmtClose        = 0x19
	ComStmtReset        = 0x1A
	ComSetOption        = 0x1B
	ComResetConnection  = 0x1F
)

// Packet header bytes.
const (
	HeaderOK          = 0x00
	HeaderAuthMore    = 0x01
	HeaderLocalInfile = 0xFB
	HeaderEOF         = 0xFE
	HeaderErr         = 0xFF
)

// Column types used here (binary protocol value encodings differ by type).
const (
	TypeDecimal    = 0x00
	TypeTiny       = 0x01
	TypeShort      = 0x02
	TypeLong       = 0x03
	TypeFloat      = 0x04
	TypeDouble     = 0x05
	TypeNull       = 0x06
	TypeTimestamp  = 0x07
	TypeLongLong   = 0x08
	TypeInt24      = 0x09
	TypeDate       = 0x0A
	TypeTime       = 0x0B
	TypeDateTime   = 0x0C
	TypeYear       = 0x0D
	TypeVarchar    = 0x0F
	TypeBit        = 0x10
	TypeNewDecimal = 0xF6
	TypeLongBlob   = 0xFB
	TypeVarString  = 0xFD
	TypeString     = 0xFE
)

// Column flags.
const (
	FlagNotNull  = 0x0001
	FlagUnsigned = 0x0020
	FlagBinary   = 0x0080
)

// Error codes this package produces or recognises.
const (
	ErHandshake             = 1043
	ErAccessDenied          = 1045
	ErUnknownCommand        = 1047
	ErBadDB                 = 1049
	ErParse                 = 1064
	ErEmptyQuery            = 1065
	ErNoSuchTable           = 1146
	ErNetPacketTooLarge     = 1153
	ErNetPacketsOutOfOrder  = 1156
	ErUnknownSystemVariable = 1193
	ErNotSupportedYet       = 1235
	ErFunctionNotDefined    = 1305
	ErUnknownStmtHandler    = 1243
	ErWrongArguments        = 1210
	ErUnsupportedPS         = 1295
	ErSecureTransportNeeded = 3159

	// The errors sysbench's --mysql-ignore-errors retries by default.
	ErCheckRead       = 1020 // Record has changed since last read
	ErLockWaitTimeout = 1205
	ErLockDeadlock    = 1213
)

// Authentication plugin names, as a greeting, a handshake response and an
// auth switch carry them.
const (
	PluginNative      = "mysql_native_password"
	PluginCachingSHA2 = "caching_sha2_password"
	PluginClear       = "mysql_clear_password"
)
