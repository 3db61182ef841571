package mysql

// Capability flags (MySQL Source Code Documentation, Capabilities Flags;
// MariaDB Knowledge Base, Connection).
const (
	capLongPassword        = 0x00000001 // CLIENT_MYSQL; MariaDB clears it to announce extended caps
	capLongFlag            = 0x00000004
	capConnectWithDB       = 0x00000008
	capProtocol41          = 0x00000200
	capSSL                 = 0x00000800
	capTransactions        = 0x00002000
	capSecureConnection    = 0x00008000
	capMultiStatements     = 0x00010000
	capMultiResults        = 0x00020000
	capPluginAuth          = 0x00080000
	capConnectAttrs        = 0x00100000
	capPluginAuthLenEnc    = 0x00200000
	capSessionTrack        = 0x00800000
	capDeprecateEOF        = 0x01000000
	capOptionalMetadata    = 0x02000000
	capQueryAttributes     = 0x08000000
	clientWantedCaps       = capLongFlag | capProtocol41 | capTransactions | capSecureConnection | capMultiResults | capPluginAuth | capPluginAuthLenEnc | capDeprecateEOF
	serverAdvertisedCaps   = capLongPassword | capLongFlag | capConnectWithDB | capProtocol41 | capTransactions | capSecureConnection | capMultiResults | capPluginAuth | capConnectAttrs | capPluginAuthLenEnc | capDeprecateEOF
	clientCharsetUTF8MB4   = 45 // utf8mb4_general_ci; MariaDB 10.11 does not know 255
	serverStatusInTrans    = 0x0001
	serverStatusAutocommit = 0x0002
	serverMoreResults      = 0x0008
)

// Command bytes (MySQL Source Code Documentation, Text Protocol and
// Prepared Statements; MariaDB Knowledge Base, COM_* pages).
const (
	comQuit             = 0x01
	comInitDB           = 0x02
	comQuery            = 0x03
	comFieldList        = 0x04
	comStatistics       = 0x09
	comPing             = 0x0E
	comChangeUser       = 0x11
	comStmtPrepare      = 0x16
	comStmtExecute      = 0x17
	comStmtSendLongData = 0x18
	comStmtClose        = 0x19
	comStmtReset        = 0x1A
	comSetOption        = 0x1B
	comResetConnection  = 0x1F
)

// Packet header bytes.
const (
	headerOK          = 0x00
	headerAuthMore    = 0x01
	headerLocalInfile = 0xFB
	headerEOF         = 0xFE
	headerErr         = 0xFF
)

// Column types used here (binary protocol value encodings differ by type).
const (
	typeDecimal    = 0x00
	typeTiny       = 0x01
	typeShort      = 0x02
	typeLong       = 0x03
	typeFloat      = 0x04
	typeDouble     = 0x05
	typeNull       = 0x06
	typeTimestamp  = 0x07
	typeLongLong   = 0x08
	typeInt24      = 0x09
	typeDate       = 0x0A
	typeTime       = 0x0B
	typeDateTime   = 0x0C
	typeYear       = 0x0D
	typeVarchar    = 0x0F
	typeBit        = 0x10
	typeNewDecimal = 0xF6
	typeVarString  = 0xFD
	typeString     = 0xFE
)

// Column flags.
const (
	flagNotNull  = 0x0001
	flagUnsigned = 0x0020
	flagBinary   = 0x0080
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

const (
	pluginNative      = "mysql_native_password"
	pluginCachingSHA2 = "caching_sha2_password"
	pluginClear       = "mysql_clear_password"
)
