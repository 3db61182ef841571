// Package await waits for a condition that no event announces — a file that
// another process writes when signalled, a port that starts accepting — by
// checking it with a backoff, and gives up as soon as the process that
// should make it true exits. It is plumbing and imports only the standard
// library.
package await
