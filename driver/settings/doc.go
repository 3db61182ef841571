// Package settings is hopbench's flags as a topology file gives them: one
// KEY=value per flag (THREADS for --threads, and autobench.conf's
// THREAD_COUNTS_TO_RUN and MAX_TIME for THREADS and TIME), their grammar
// and vocabularies, checked at the file's line, and Args, which renders
// the file's settings as the flags hopbench parses ahead of the command
// line's, so that the flags the user gives override the file.
//
// The file's hosts, where each component runs and the ssh keys are the
// hosts package's (hosts.TopologyFile, which File embeds); this package
// gives it the keys it may meet besides (hosts.Settings). Only cmd/ parses
// flags: this package names them, as a topology key's grammar must.
//
// It may import hosts and internal/list.
package settings
