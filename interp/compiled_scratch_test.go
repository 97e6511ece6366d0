package interp

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestScratchCompiled(t *testing.T) {
	var out, errw bytes.Buffer
	s, err := New(Options{Stdout: &out, Stderr: &errw, Stdin: strings.NewReader("")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{
		"import \"fmt\"\nfunc fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn fib(n-1) + fib(n-2)\n}\nfmt.Println(fib(27))",
		"type P struct{ X, Y int }\nfunc (p P) Sum() int { return p.X + p.Y }\nvar count int\nfunc bump() { count++ }",
		"p := P{1, 2}\nbump(); bump()\nfmt.Println(p.Sum(), count)",
		"func fib(n int) int { return n * 2 }\nfib(4)",
		"func main() {\n\tvar a []int\n\tfmt.Println(a[3])\n}",
		"func spin() { for { } }\nspin()",
		"fmt.Println(fib(5), count)",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if strings.Contains(c, "spin()") {
			cancel()
			ctx, cancel = context.WithTimeout(context.Background(), 3*time.Second)
		}
		t0 := time.Now()
		res, err := s.Eval(ctx, c)
		cancel()
		t.Logf("%v: res=%v err=%v\nout=%q\nerr=%q", time.Since(t0), res.Value, err, out.String(), errw.String())
		out.Reset()
		errw.Reset()
	}
}
