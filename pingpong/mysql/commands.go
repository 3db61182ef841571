package mysql

// Commands lists every Command ParseCommand accepts, in the order help
// texts name them.
var Commands = []Command{CommandPing, CommandSelect1, CommandPointSelect, CommandOLTPRO, CommandOLTPRW, CommandOLTPWO, CommandQuery}
