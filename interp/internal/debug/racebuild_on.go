//go:build race

package debug

// raceBuild is true in a binary built with -race: yaegi's debugger reads
// and writes its goroutine records and the interpreter's debugger field
// without synchronisation, so such a session is never debuggable (Pin)
// and the race detector sees only the session's own code.
const raceBuild = true
