// Package frame is the echo protocol's wire format, shared by the client
// (pingpong/echo) and the responder (responder/echo): a length, a sequence
// number and a fixed filler, so that a lost, duplicated, short or corrupted
// reply is detected. It imports the standard library only.
package frame
