// Package echo is the simplest protocol pingpong measures: fixed-size
// requests that the responder (responder/echo) sends back byte for byte.
// Each request carries its length and a sequence number (package
// echo/frame), so a lost, duplicated, short or corrupted reply is detected
// and counted as an error, never silently timed.
//
// It imports pingpong and echo/frame only.
package echo
