package relay

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/hoplat/hoplat/roles"
)

// Route names what a relay reads of the bytes it moves.
type Route string

const (
	// RouteBytes moves bytes and reads none of them: every engine.
	RouteBytes Route = "bytes"
	// RouteConn reads the MySQL protocol (readconnroute's job): the
	// relay logs the client in itself, with Config.Users, opens its own
	// authenticated connection to one upstream per client connection
	// (Config.Balance over all of them), and forwards whole packets.
	RouteConn Route = "conn"
	// RouteRW is RouteConn splitting reads from writes (readwritesplit's
	// job): the first upstream is the primary, the rest replicas;
	// autocommit reads go to a replica, everything else and every
	// transaction to the primary, a READ ONLY transaction to a replica;
	// session state is replayed on each server the session uses and
	// prepared statements are prepared on each, their ids mapped.
	RouteRW Route = "rw"
)

// Routes lists every Route, the default first.
var Routes = []Route{RouteBytes, RouteConn, RouteRW}

// maxRouteUpstreams bounds a router's upstreams: a prepared statement
// keeps which of them it is prepared on in one 64-bit mask.
const maxRouteUpstreams = 64

// RouteStats counts what a MySQL router (RouteConn, RouteRW) did.
type RouteStats struct {
	Mode Route `json:"mode"`
	// Statements are the client's commands that run a statement
	// (COM_QUERY, COM_STMT_EXECUTE); ToPrimary and ToReplicas where they
	// went (conn: ToPrimary counts every one, whichever upstream).
	Statements int64 `json:"statements"`
	ToPrimary  int64 `json:"to_primary"`
	ToReplicas int64 `json:"to_replicas"`
	// Prepares are COM_STMT_PREPAREs sent to upstreams, the client's and
	// those the router makes on a server a statement had not been
	// prepared on.
	Prepares int64 `json:"prepares"`
	// Replays are session statements (SET, USE, COM_INIT_DB) the router
	// ran again on a server the session came to use after them.
	Replays int64 `json:"replays"`
	// Transactions are transactions begun (BEGIN, START TRANSACTION,
	// READ ONLY ones included).
	Transactions int64 `json:"transactions"`
}

// routeCounters are RouteStats as the loops add to them.
type routeCounters struct {
	statements, toPrimary, toReplicas, prepares, replays, transactions atomic.Int64
}

func (c *routeCounters) stats(mode Route) *RouteStats {
	return &RouteStats{Mode: mode, Statements: c.statements.Load(), ToPrimary: c.toPrimary.Load(),
		ToReplicas: c.toReplicas.Load(), Prepares: c.prepares.Load(), Replays: c.replays.Load(),
		Transactions: c.transactions.Load()}
}

// ParseUsers reads a users file: one account a line, "name:password" (the
// password runs to the end of the line, colons included); blank lines and
// lines starting with # are skipped.
func ParseUsers(r io.Reader) (map[string]string, error) {
	users := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		if t := bytes.TrimSpace(line); len(t) == 0 || t[0] == '#' {
			continue
		}
		name, pw, ok := strings.Cut(string(line), ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("relay: users line %d: want name:password", n)
		}
		if strings.ContainsAny(name, "\x00") || strings.ContainsAny(pw, "\x00") {
			return nil, fmt.Errorf("relay: users line %d: NUL byte", n)
		}
		if _, dup := users[name]; dup {
			return nil, fmt.Errorf("relay: users line %d: user %q given twice", n, name)
		}
		users[name] = pw
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("relay: users: %w", err)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("relay: users: no account")
	}
	return users, nil
}

// checkRoute fills the route's defaults and refuses what a router cannot
// do; the engine is still as given ("" for the default).
func (c *Config) checkRoute() error {
	if err := oneOf("route", &c.Route, Routes); err != nil {
		return err
	}
	if c.Route == RouteBytes {
		return nil
	}
	if c.Engine == "" {
		c.Engine = EngineEpoll
	}
	if c.Engine != EngineEpoll {
		return fmt.Errorf("relay: route %s: engine %s: a router reads every packet in user space; want engine %s", c.Route, c.Engine, EngineEpoll)
	}
	if len(c.Users) == 0 {
		return fmt.Errorf("relay: route %s: no users (the router logs clients in itself)", c.Route)
	}
	if c.Lock != "" && c.Lock != LockNone {
		return fmt.Errorf("relay: route %s: lock %s: a router takes no lock per chunk", c.Route, c.Lock)
	}
	return nil
}

// RouteNames is "bytes, conn or rw", for an error.
func RouteNames() string { return roles.OrList(Routes) }
