package cellrt

import (
	"encoding"
	"errors"
	"flag"
	"sync"
	"time"
)

// The flag package of compiled cells. A program's flags live on
// flag.CommandLine, which is the worker's, shared by every cell of the
// session: running a cell that defines a flag a second time would panic
// ("flag redefined"), and flag.Parse would read the worker's arguments.
// Compiled cells call these instead (the tier rewrites flag.Int and the
// other functions of the package to FlagInt, ...): they define the flags
// on a set of the session's own, where a cell run again redefines its
// flags as a fresh go run would, and Parse reads Args, the program's
// arguments as go run gives them (none).

var (
	flagMu sync.Mutex
	flags  = newFlags()
)

func newFlags() *flag.FlagSet { return flag.NewFlagSet(Args[0], flag.ContinueOnError) }

// FlagSet is flag.CommandLine of compiled cells.
func FlagSet() *flag.FlagSet {
	flagMu.Lock()
	defer flagMu.Unlock()
	return flags
}

// define runs def on the set after removing a flag of the same name that
// an earlier run of the cell defined.
func define(name string, def func(fs *flag.FlagSet)) {
	flagMu.Lock()
	if flags.Lookup(name) != nil {
		fresh := newFlags()
		flags.VisitAll(func(f *flag.Flag) {
			if f.Name != name {
				fresh.Var(f.Value, f.Name, f.Usage)
			}
		})
		flags = fresh
	}
	fs := flags
	flagMu.Unlock()
	def(fs)
}

// FlagParse is flag.Parse: it parses Args[1:] and, as a program's
// flag.Parse does, exits with status 2 on a bad flag (0 for -help),
// after the flag package has printed the error and the usage.
func FlagParse() {
	err := FlagSet().Parse(Args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		Exit(0)
	case err != nil:
		Exit(2)
	}
}

// FlagParsed is flag.Parsed of compiled cells.
func FlagParsed() bool { return FlagSet().Parsed() }

// FlagArgs is flag.Args of compiled cells.
func FlagArgs() []string { return FlagSet().Args() }

// FlagArg is flag.Arg of compiled cells.
func FlagArg(i int) string { return FlagSet().Arg(i) }

// FlagNArg is flag.NArg of compiled cells.
func FlagNArg() int { return FlagSet().NArg() }

// FlagNFlag is flag.NFlag of compiled cells.
func FlagNFlag() int { return FlagSet().NFlag() }

// FlagLookup is flag.Lookup of compiled cells.
func FlagLookup(name string) *flag.Flag { return FlagSet().Lookup(name) }

// FlagSetValue is flag.Set of compiled cells.
func FlagSetValue(name, value string) error { return FlagSet().Set(name, value) }

// FlagVisit is flag.Visit of compiled cells.
func FlagVisit(fn func(*flag.Flag)) { FlagSet().Visit(fn) }

// FlagVisitAll is flag.VisitAll of compiled cells.
func FlagVisitAll(fn func(*flag.Flag)) { FlagSet().VisitAll(fn) }

// FlagPrintDefaults is flag.PrintDefaults of compiled cells.
func FlagPrintDefaults() { FlagSet().PrintDefaults() }

// FlagVar is flag.Var of compiled cells.
func FlagVar(value flag.Value, name, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.Var(value, name, usage) })
}

// FlagFunc is flag.Func of compiled cells.
func FlagFunc(name, usage string, fn func(string) error) {
	define(name, func(fs *flag.FlagSet) { fs.Func(name, usage, fn) })
}

// FlagBoolFunc is flag.BoolFunc of compiled cells.
func FlagBoolFunc(name, usage string, fn func(string) error) {
	define(name, func(fs *flag.FlagSet) { fs.BoolFunc(name, usage, fn) })
}

// FlagTextVar is flag.TextVar of compiled cells.
func FlagTextVar(p encoding.TextUnmarshaler, name string, value encoding.TextMarshaler, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.TextVar(p, name, value, usage) })
}

// newFlag defines a flag of a pointer type T with mk, flag.Int's
// counterpart on a FlagSet.
func newFlag[T any](name string, mk func(fs *flag.FlagSet) *T) *T {
	var p *T
	define(name, func(fs *flag.FlagSet) { p = mk(fs) })
	return p
}

// FlagBool is flag.Bool of compiled cells.
func FlagBool(name string, value bool, usage string) *bool {
	return newFlag(name, func(fs *flag.FlagSet) *bool { return fs.Bool(name, value, usage) })
}

// FlagBoolVar is flag.BoolVar of compiled cells.
func FlagBoolVar(p *bool, name string, value bool, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.BoolVar(p, name, value, usage) })
}

// FlagInt is flag.Int of compiled cells.
func FlagInt(name string, value int, usage string) *int {
	return newFlag(name, func(fs *flag.FlagSet) *int { return fs.Int(name, value, usage) })
}

// FlagIntVar is flag.IntVar of compiled cells.
func FlagIntVar(p *int, name string, value int, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.IntVar(p, name, value, usage) })
}

// FlagInt64 is flag.Int64 of compiled cells.
func FlagInt64(name string, value int64, usage string) *int64 {
	return newFlag(name, func(fs *flag.FlagSet) *int64 { return fs.Int64(name, value, usage) })
}

// FlagInt64Var is flag.Int64Var of compiled cells.
func FlagInt64Var(p *int64, name string, value int64, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.Int64Var(p, name, value, usage) })
}

// FlagUint is flag.Uint of compiled cells.
func FlagUint(name string, value uint, usage string) *uint {
	return newFlag(name, func(fs *flag.FlagSet) *uint { return fs.Uint(name, value, usage) })
}

// FlagUintVar is flag.UintVar of compiled cells.
func FlagUintVar(p *uint, name string, value uint, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.UintVar(p, name, value, usage) })
}

// FlagUint64 is flag.Uint64 of compiled cells.
func FlagUint64(name string, value uint64, usage string) *uint64 {
	return newFlag(name, func(fs *flag.FlagSet) *uint64 { return fs.Uint64(name, value, usage) })
}

// FlagUint64Var is flag.Uint64Var of compiled cells.
func FlagUint64Var(p *uint64, name string, value uint64, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.Uint64Var(p, name, value, usage) })
}

// FlagString is flag.String of compiled cells.
func FlagString(name string, value string, usage string) *string {
	return newFlag(name, func(fs *flag.FlagSet) *string { return fs.String(name, value, usage) })
}

// FlagStringVar is flag.StringVar of compiled cells.
func FlagStringVar(p *string, name string, value string, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.StringVar(p, name, value, usage) })
}

// FlagFloat64 is flag.Float64 of compiled cells.
func FlagFloat64(name string, value float64, usage string) *float64 {
	return newFlag(name, func(fs *flag.FlagSet) *float64 { return fs.Float64(name, value, usage) })
}

// FlagFloat64Var is flag.Float64Var of compiled cells.
func FlagFloat64Var(p *float64, name string, value float64, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.Float64Var(p, name, value, usage) })
}

// FlagDuration is flag.Duration of compiled cells.
func FlagDuration(name string, value time.Duration, usage string) *time.Duration {
	return newFlag(name, func(fs *flag.FlagSet) *time.Duration { return fs.Duration(name, value, usage) })
}

// FlagDurationVar is flag.DurationVar of compiled cells.
func FlagDurationVar(p *time.Duration, name string, value time.Duration, usage string) {
	define(name, func(fs *flag.FlagSet) { fs.DurationVar(p, name, value, usage) })
}
