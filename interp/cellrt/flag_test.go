package cellrt

import (
	"flag"
	"strings"
	"testing"
)

// same compiles only when a and b have one type.
func same[T any](a, b T) {}

// TestFlagSignatures: each replacement has the type of flag's function,
// so that the tier's rewrite keeps a cell's program valid.
func TestFlagSignatures(t *testing.T) {
	same(flag.Parse, FlagParse)
	same(flag.Parsed, FlagParsed)
	same(flag.Args, FlagArgs)
	same(flag.Arg, FlagArg)
	same(flag.NArg, FlagNArg)
	same(flag.NFlag, FlagNFlag)
	same(flag.Lookup, FlagLookup)
	same(flag.Set, FlagSetValue)
	same(flag.Visit, FlagVisit)
	same(flag.VisitAll, FlagVisitAll)
	same(flag.PrintDefaults, FlagPrintDefaults)
	same(flag.Var, FlagVar)
	same(flag.Func, FlagFunc)
	same(flag.BoolFunc, FlagBoolFunc)
	same(flag.TextVar, FlagTextVar)
	same(flag.Bool, FlagBool)
	same(flag.BoolVar, FlagBoolVar)
	same(flag.Int, FlagInt)
	same(flag.IntVar, FlagIntVar)
	same(flag.Int64, FlagInt64)
	same(flag.Int64Var, FlagInt64Var)
	same(flag.Uint, FlagUint)
	same(flag.UintVar, FlagUintVar)
	same(flag.Uint64, FlagUint64)
	same(flag.Uint64Var, FlagUint64Var)
	same(flag.String, FlagString)
	same(flag.StringVar, FlagStringVar)
	same(flag.Float64, FlagFloat64)
	same(flag.Float64Var, FlagFloat64Var)
	same(flag.Duration, FlagDuration)
	same(flag.DurationVar, FlagDurationVar)
}

// TestFlagRedefine: a flag defined again (a cell run twice) replaces the
// first, keeps the others, and Parse reads Args (none: the defaults).
func TestFlagRedefine(t *testing.T) {
	n := FlagInt("n", 3, "count")
	name := FlagString("name", "gopher", "who")
	n2 := FlagInt("n", 5, "count")
	FlagParse()
	if *n != 3 || *n2 != 5 || *name != "gopher" || !FlagParsed() || FlagNArg() != 0 {
		t.Errorf("after redefining n: n = %d, n2 = %d, name = %q, parsed %v, %d args; want 3, 5, gopher, true, 0", *n, *n2, *name, FlagParsed(), FlagNArg())
	}
	if err := FlagSetValue("name", "ada"); err != nil || *name != "ada" {
		t.Errorf("Set(name, ada) = %v, name %q", err, *name)
	}
	var got []string
	FlagVisitAll(func(f *flag.Flag) { got = append(got, f.Name+"="+f.Value.String()) })
	if s := strings.Join(got, " "); s != "n=5 name=ada" {
		t.Errorf("VisitAll saw %q, want n=5 name=ada", s)
	}
	if flag.CommandLine.Lookup("n") != nil {
		t.Errorf("the process's flag.CommandLine got n")
	}
}
