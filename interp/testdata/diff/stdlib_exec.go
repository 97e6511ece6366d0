package main

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

func main() {
	out, err := exec.Command("echo", "from", "echo").Output()
	fmt.Printf("%q %v\n", out, err)
	cmd := exec.Command("tr", "a-z", "A-Z")
	cmd.Stdin = strings.NewReader("shout\n")
	var b strings.Builder
	cmd.Stdout = &b
	fmt.Println(cmd.Run(), b.String())
	_, err = exec.LookPath("gnnlab-no-such-command")
	fmt.Println(errors.Is(err, exec.ErrNotFound))
	err = exec.Command("false").Run()
	var ee *exec.ExitError
	fmt.Println(errors.As(err, &ee), ee.ExitCode())
}
