// Package echo is the echo protocol's responder: a Handler that sends every
// frame (package echo/frame) back byte for byte after spending its Service
// time. pingpong/echo is the client side.
//
// It imports responder and echo/frame only.
package echo
