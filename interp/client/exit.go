package client

import "strings"

// IsExit reports whether code asks the frontend to end: exit or quit, with
// or without (), alone in the cell. Go has neither name, so a cell made
// of one of them can mean nothing else; Execute answers it with
// Result.Exit and runs nothing.
func IsExit(code string) bool {
	switch strings.TrimSpace(code) {
	case "exit", "quit", "exit()", "quit()":
		return true
	}
	return false
}
