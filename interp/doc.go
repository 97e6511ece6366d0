// Package interp is the Go session of gnnlab: notebook cells evaluated in
// order by the yaegi interpreter (github.com/traefik/yaegi), with the
// standard library and the gnnlab packages (interp/symbols) preloaded.
// The worker process, the REPL and the notebook runner drive a Session:
// Eval runs a cell; Complete, Inspect and IsComplete serve the frontend
// between cells (never concurrently with Eval).
//
// # Cells
//
// A cell may mix imports, declarations and statements in any order. The
// session cuts it into top-level pieces (a piece starting with import,
// type, var, const, or func with a name or receiver is a declaration) and
// runs first the imports and declarations, then the statements in order.
// Declarations may use each other in any order, as in a Go file, and
// their variables are initialised in Go's order, dependencies first. A
// function may use a variable that a statement of the same cell defines
// (y := 41; func f() int { return y + 1 }): the variable is declared with
// the declarations and the statement assigns it (internal/rewrite/hoist.go). A variable
// declaration whose value reads such a variable, or another such
// declaration, is initialised in its place among the statements, as in a
// function body (xs := f(); var si sort.Interface = rs{xs}: it had run
// with the declarations and read the zero xs).
//
// A package that a cell uses without importing it (fmt.Println with no
// import "fmt") is imported as goimports would: a preloaded package of
// that name that has every name the cell selects from it, the shortest
// path first (math/rand before math/rand/v2); the session keeps the
// import and writes "interp: added import ..." on standard error
// (imports.go). The names the cell uses undefined are those that go/types
// (package internal/typecheck, told the session's imports, globals and
// earlier declarations) and the session both do not know.
//
// yaegi cannot initialise a package-level variable that refers to one of
// an earlier evaluation, so the session runs the declarations in phases
// (see Session.runDecls): functions and variables become variables that
// statements declare and assign. Statements such as x := 1 at the top of
// a cell define session variables too.
//
// Cells are numbered from 1 by Eval calls. The interpreter sees each piece
// with a //line directive whose line number encodes the cell and its line,
// so that compile errors and panics point at "cell[N]:LINE:COL".
//
// # Values
//
// When the last statement of a cell is an expression, its value is the
// cell's Result: its text/plain is fmt's %v of the value, strings quoted
// with %q so that "1" and 1 look different, several results separated by
// ", " (two() shows 1, "a"). A value implementing display.Renderer shows
// the bundle its Render method returns (the seam for HTML, images and
// plots). Calls of no value, and calls of fmt.Print*, fmt.Fprint*,
// log.Print*, print and println, show nothing. fmt uses the String and
// Error methods of interpreted types, as Go does.
//
// # Redefinition
//
// A plain function (no receiver, no type parameters, not init) is turned
// into a function variable: func f(x int) int {...} runs as
// var f func(x int) int; f = func(x int) int {...}. Redefining f with the
// same signature assigns the same variable, so functions defined earlier
// call the new body; recursion works through the variable. A cell's init
// functions run after its package-level variables are initialised, as in
// Go. A function
// named main is renamed (yaegi would run main again on every later cell)
// and called when its cell runs, once, unless the cell calls main()
// itself; main() in any cell calls it (yaegi took main() for its own
// entry point and ran other functions). So a whole program pasted into a
// cell, or split across cells with func main last, runs as go run runs it.
//
// Redefining a type or a method with a different text would be ignored by
// yaegi, so the session then rebuilds itself: a fresh interpreter replays
// the recorded imports and declarations of the successful cells, the new
// ones replacing the old ones of the same name (a method's name is
// Type.Method: package internal/declname names what a declaration defines,
// for the session, the rewrite passes and the compiled tier alike). All
// variable declarations
// run again; those whose type did not change get their old values back,
// the others keep their new initial value (re-initialised). Statements are
// not re-run: variables that statements defined are carried over when
// their values hold no interpreted type and no function, and dropped
// otherwise; so is a declaration that uses a dropped variable (var w
// Writer = p after p := &buf{}), and one that uses what such a
// declaration declared, unless it is in the cell being run, which then
// fails naming the variable. A declaration of several names that a later
// cell redefined in part replays with those names blank (var a, _ = 1,
// 2). The session writes a line on standard error naming the variables
// re-initialised and dropped.
//
// The session rebuilds itself the same way when a cell declares a generic
// function that a method or generic function of an earlier cell called
// before it existed (Walk calling walk(t.root, f), walk declared in the
// next cell): the call had no type arguments from go/types, and yaegi
// inferred wrong ones (frames.go).
//
// # Rewrites
//
// Go features newer than yaegi, and statements that yaegi mishandles at
// the top level of a cell, are rewritten in the cell's text before it
// runs, with the types found by go/types: the passes of
// internal/rewrite, whose package doc lists each rewrite and the yaegi
// behaviour it covers. Rewritten code calls the compiled helpers of
// internal/rt. The session runs a cell's declarations in phases
// (Session.runDecls), in which the methods of a cell's generic type run
// with the cell's types, before the types and constants that name the
// generic type, when their bodies use no function or variable of the
// cell: yaegi gave an instance (Box[int]) only the methods its type had
// when the instance was made, so a struct embedding it lacked the
// promoted methods and a function of the cell taking one broke the
// methods' compilation (rewrite.EarlyMethods chooses the types).
//
// # Programs
//
// os.Exit(code) ends the cell, not the session (internal/rt/exit.go): no deferred
// call runs, in functions or at the top of the cell, nothing after it
// runs, and Eval returns an *Error named "exit" with the value
// "os.Exit(3): exit status 3", or no error for status 0. The session
// keeps its variables; the goroutine that called os.Exit stays blocked.
// log.Fatal* print their message and exit with status 1. os.Args is
// [main], a program's name and no arguments, as go run gives them.
//
// # Compiled cells
//
// A cell's declarations (functions, methods, types, variables and
// constants) are built with the Go toolchain into a Go plugin and loaded
// into the process (compiled.go, package interp/internal/compiled): the
// interpreter then calls them at native speed, through a wrapper function
// of the same signature for each function, an alias for each type, and
// the plugin's own storage for each package-level variable (references to
// it in later cells are rewritten to it). The cell's statements stay
// interpreted; a pasted program is compiled whole, since its work is in
// func main and the functions it calls. A cell that declares only
// variables and constants (not of compiled types) stays interpreted: a
// plugin would gain it nothing. Constants of compiled types are bound to
// the plugin's values (variables, for the interpreter). The tier is on by default
// (GNNLAB_COMPILED=off, %compiled off turn it off) and needs the go
// command of the toolchain that built the binary and the checkout it was
// built from (found from where the binary's sources were compiled, or
// $GNNLAB_CHECKOUT); a plugin is built with the host's -race, -tags and
// flags, in a module of the session's own that requires the checkout.
//
// A plugin cannot import another, so a later cell that uses what earlier
// compiled cells declared gets them declared again in its own plugin.
// That is exact for functions and constants; for types and variables it
// is exact only while no statement has run since they were compiled (no
// value of the type, no changed state can exist yet), so a cell that uses
// a compiled type or variable after statements ran runs interpreted. A
// cell that redeclares a function also rebuilds the compiled functions
// that call it, so the new definition takes effect everywhere.
//
// Where a cell's declarations cannot compile they run interpreted, and a
// one-line notice on stderr says why, once per kind of reason: the
// toolchain or plugins are missing, the binary was not built from the
// checkout, the cell uses a value an interpreted cell declared, a type has
// unexported fields or methods (which interpreted code could not reach in
// a compiled type; a cell with func main compiles them), a declaration is
// generic (the interpreter cannot call a compiled generic function; again
// a cell with func main compiles it), the cell has a //go:embed directive
// the tier does not compile (it compiles one into a string or []byte
// variable, naming a file of the session's working directory, with
// import _ "embed"; not a glob, a directory or an embed.FS, and embed
// is not available in interpreted cells), or the plugin did not build. When an
// interpreted cell refers to declarations compiled since statements last
// ran, they are declared again, interpreted, in that cell. %compiled shows
// how each declaration runs and why.
//
// While the debugger is on (SetDebug), declarations run interpreted, so
// that breakpoints and steps reach them; functions compiled before stay
// compiled and are stepped over.
//
// Compiled code checks an interrupt flag at function entries and loop
// back-edges (package interp/cellrt), so an interrupt ends a compiled loop
// at once and the session keeps its state. A panic in compiled code is
// the cell's error, with Go's message; its traceback names the cell lines
// of the compiled functions the panic went through. os.Exit, log.Fatal*,
// os.Args, os.Stdin and fmt.Scan* behave as in interpreted cells (the
// generated code calls package cellrt's). The functions of package flag
// are cellrt's in both kinds of cell: a set of flags of the session's
// own, where a cell run again defines its flags again as a fresh go run
// does (on the worker's flag.CommandLine it panicked, "flag redefined"),
// and flag.Parse reads the program's arguments (none), not the worker's. Where the session's stdout is
// not the process's (tests, embedding), what compiled functions print is
// copied to it when they return.
//
// # Errors of interpreted types
//
// The fmt and log functions that print see the Error method of
// interpreted types (yaegi wrapped their arguments for Formatter and
// Stringer only), and errors.Is, errors.As and errors.Unwrap see their
// Unwrap, Is and As methods: the session gives yaegi error wrappers with
// these methods and replaces errors.Is and errors.As by versions that
// look through yaegi's wrappers, so that a target of an interpreted
// pointer type (var nf *NotFound) is filled (internal/rt/errwrap.go).
//
// # Type names in fmt
//
// yaegi makes each struct type of a cell with reflect.StructOf: no name,
// and an X in front of unexported field names. The session registers the
// reflect type of every struct type a cell declares with its Go name and
// fields, and the fmt functions that take a format print %T, %+v and %#v
// of such values as Go does: main.point, {x:1 y:2}, main.point{x:1, y:2}
// (internal/rt/fmtnames.go). A named type of another kind (type ID int) has its
// underlying reflect type in yaegi: in a call with a constant format that
// holds %T or %#v, an argument of such a type is passed with its Go name
// (internal/rewrite/rewrite_fmt.go), so %T prints main.ID. %d and the other verbs that do
// not call String print the value of an interpreted Stringer, not yaegi's
// wrapper, and an argument whose static type holds a cell type with a
// method that fmt looks for prints as Go prints it (see the rewrites
// above): [Red Green], not [0 1], map[♥:2], not map[1:2]. The printing functions without a format
// (Print, Println, Sprint, Fprintln...) are the session's too: a value of
// a struct type of the session (or a pointer to one) with an Error or
// String method, held in an any, bare or in yaegi's wrapper, and so in a
// []any, prints by its method, %T by its Go name (internal/rt/ifacevalue.go); an
// argument of type any of these functions goes through a compiled
// function (__gnnlab_rt.PrintOperand), since yaegi built the method
// wrappers of its own wrapper from the caller's frame (func describe(v
// any) string { return fmt.Sprint(v) } printed <nil> for pt{1, 2}, or
// crashed). PrintOperand and these functions tell the type of a value in
// yaegi's wrapper by the name yaegi's type has, also for a named type of
// another kind than struct with methods (type level int), and print it
// by its methods and %T by its Go name, also inside a map[string]any, a
// [][]any or a field of type any, where fmt printed yaegi's wrapper as a
// struct (internal/rt/fmtany.go). log's Print*, Panic* and Fatal* and a *log.Logger's
// printing methods print as these functions do (internal/rt/logprint.go).
//
// A rewrite that needs a type that cannot be written in the cell (of a
// package the session did not import) is not made. A range over a
// function whose body returns, defers, uses goto or a label, and the
// generic functions of the standard library that the session does not
// provide (slices.Grow, slices.Replace) fail with an *Error named
// "unsupported" that names the construct; so does x.(T) or case T of a
// type switch on x, x of a compiled interface type other than error
// (sort.Interface, fmt.Stringer) and T a struct type of the session with
// fields: yaegi's wrapper of the interface holds the struct's last field,
// not the struct, and the assertion answered false (internal/rewrite/rewrite_iface.go).
//
// # Errors
//
// Eval returns an *Error for every failure of the cell: "compile error"
// (syntax and type errors), "panic" (the cell panicked; Value is the
// panic value as Go prints it: of an error, its Error method's result,
// else of a fmt.Stringer, its String method's, also for values of the
// cells' struct types, whose fields yaegi printed: internal/rt/ifaceassert.go),
// "runtime error" (index out of range, nil dereference),
// "interrupted" (ctx was cancelled) and "unsupported". Tracebacks hold
// lines "cell[N]:LINE:COL: message"; for a panic, one line per interpreted
// function that the panic went through. A cell that Go's compiler refuses
// fails before anything runs (before the compiled tier builds it), with
// go build's message at the cell's
// position (up to 10 lines, as go build lists them), when go/types finds
// the error where the session's partial view of itself cannot have
// caused it (internal/typecheck's Refused: no variable of an earlier cell
// takes part while the session has a named type that is not a struct or
// a module's package, nor a name go/types lacks); TestDifferentialInvalid
// compares the corpus testdata/invalid with go build. Unlike in Go,
// unused variables and imports are allowed (not labels). A panic inside
// yaegi itself is recovered into an "unsupported" error, unless go/types
// found a type
// error in the cell: then the cell fails with the first of those, as Go
// would (min(), byte(), 0[0], a generic type without type arguments, x, y
// := g of a session variable g: errors.go's goWords); yaegi's stack is
// never shown
// (set GNNLAB_DEBUG_STACK=1 to have it written to stderr when reporting a
// bug; GNNLAB_DEBUG_SRC=1 writes the rewritten source given to yaegi).
// The line "nil reflect type" that yaegi's log.Panic wrote to the standard
// logger before such a panic is dropped (stdio.go). A
// cell that fails to compile leaves the session as it was, except
// that a variable it declared stays known with its zero value.
//
// # Interrupt
//
// Cancelling Eval's context stops interpreted code at its next step (a
// for {} loop stops within milliseconds), and Eval waits for it to stop
// before returning; the session keeps its variables. The session stops
// yaegi itself (stop.go): yaegi's own stop leaves every function defined
// before it returning zero values, and waiting for it meant dumping all
// goroutines' stacks; this stop re-arms the earlier functions once the
// cell has ended and takes about 10 ms however many goroutines there are.
// A cell blocked in a channel operation, a select of its top level or on
// a ticker's channel stops after 250 ms (when the interpreted loops have
// had their chance, the channel operations are released); one blocked in
// a select of a function stops at once (the runtime's Select waits on the
// interrupt; a goroutine of an earlier cell in such a select waits on).
// Cells get versions of the common blocking calls that an interrupt ends
// (blocking.go): time.Sleep, sync.WaitGroup's Wait, HTTP requests through
// http.Get, Head, Post, PostForm, http.DefaultClient and
// http.DefaultTransport, and reads and writes of the files that os.Pipe,
// os.Open, os.OpenFile, os.Create and os.NewFile return; and the session
// raises gnnlib/interrupt's signal, which gnnlib's long operations poll
// (they return an *interrupt.Error).
// A cell blocked in any other compiled call is still running when Eval
// gives up after two seconds: Stuck then reports true, and interp/client
// replaces the worker and replays the cells that had succeeded. An
// interrupted cell whose goroutines still run says so in its traceback.
// A cell interrupted before it runs (while the compiled tier builds it)
// runs none of itself, and one whose functions' bodies fail after their
// variables were declared (a compile error, an interrupt) leaves those
// functions undefined, not nil.
//
// # Memory
//
// yaegi keeps more per evaluation than a session of 10,000 cells can
// afford, and two of its habits made memory grow with the square of the
// session's length: a function literal evaluated at the top level copies
// the whole global frame, which has a slot for every global and every
// temporary of every cell so far, and a list kept for yaegi's debugger
// held every tree it compiled. So the session:
//
//   - makes functions inside functions (frames.go): the assignments of a
//     cell's functions and variables (f = func(...) {...}, v = expr) run
//     in a function declared for them and called once, and a function
//     literal of the statements that uses package-level names only
//     (h := func(a int) int {...}) is returned by a function declared for
//     it; the literal then copies that function's few slots, and globals
//     are shared through the root frame either way. Variables that the
//     cell's top-level definitions make count as package-level names (x
//     := 1; k := func() int { return x }): they are declared first and
//     their definitions become assignments;
//   - after each cell (release.go, internal/frame), resets the slots of
//     the cell's temporaries, empties the debugger's lists (the compiled
//     roots, the scopes nested in the package scopes), forgets the
//     functions it declared for the cell, and starts the next cell in a
//     fresh FileSet, so that the code of finished statements and of
//     redefined functions is freed; the source of statements that made no
//     function leaves yaegi's file set once they ran;
//   - after statements that made no function and started no goroutine,
//     cuts the global frame back to its last global (internal/frame):
//     yaegi allocates and copies the whole frame on each evaluation that
//     adds slots, and with five slots a cell a session of 10,000 cells
//     copied 1.2 MB on nearly every cell, its round trip doubling.
//
// In BenchmarkSoak the live heap then grows by about 0.4 KB a cell that
// redefines a function or computes with temporaries, and by about 8 KB a
// cell of its mixed notebook (the code and symbols of what the cells
// define), as much at the 10,000th cell as at the 1,000th
// (TestMemoryGrowsLinearly checks that the growth is linear). Through
// the worker, interp/client's BenchmarkSoak (10,000 cells over a bounded
// state) holds 9.1 MiB live at 1,000 cells and 11.4 MiB at 10,000, and
// the round trip's median 0.49 and 0.57 ms (README, "Benchmarks").
//
// # Standard streams
//
// Options.Stdout and Options.Stderr receive fmt.Print*, println, and what
// cells write to os.Stdout and os.Stderr; os.Stdin, fmt.Scan* and readers
// of os.Stdin read Options.Stdin. Without one, reading fails with
// ErrNoStdin.
//
// In the worker, os.Stdin asks the frontend for a line each time it runs
// dry. The end of input is an input reply with EOF set
// (workerproto.Request.EOF, client.ReplyEOF): the read returns io.EOF, and
// so does every later read of the same cell, so io.ReadAll(os.Stdin) and
// a bufio.Scanner loop finish. The kernel sends it for an empty
// input_reply (Jupyter has no end-of-input reply: an empty line cannot be
// entered), gnnlab repl for Ctrl-D at the input prompt (there an empty
// line is an empty line). The next cell's input starts afresh.
//
// # Standard library
//
// The standard library of cells is the one of the toolchain that builds
// gnnlab: interp/symbols extracts every importable standard package (its
// stdlib.txt) from it, and those tables replace yaegi's, which were
// extracted from Go 1.22 (stdsymbols.go). stdlib.txt leaves out, as yaegi
// does, syscall and unsafe, plugin (the session's compiled tier loads
// plugins itself), and runtime/cgo and runtime/race, which the
// interpreter cannot serve; embed is
// explained below. log is the table with log.Logger replaced by the real
// *log.Logger whose Fatal methods end the cell like os.Exit(1) (internal/rt/exit.go);
// log.New and log.Default return it.
//
// os/exec works in cells: a command's output may go to the cell's
// os.Stdout. A cell that imports a package that no table holds is refused
// before any of it runs (imports.go), with a compile error that names
// the package; embed is one for interpreted cells (the interpreter cannot
// embed: the compiled tier builds a //go:embed of a file into a string or
// []byte variable, above; otherwise read files with os.ReadFile or
// os.DirFS), and so are unsafe,
// syscall, cgo, and modules outside the standard library and gnnlab that
// %go get did not add.
//
// # Modules
//
// %go get MODULE[@VERSION] (or a folder holding a go.mod) makes the
// packages of a module and of its requirements importable (modules.go).
// The session runs the go command in a main module of its own, a
// temporary folder: go get resolves and downloads into the user's module
// cache, and go list -deps names each package's folder and Go files for
// this platform. yaegi then interprets a package that a cell imports from
// that source, through a GOPATH tree that exists only as the file system
// the session gives yaegi (modFS): nothing is copied. A package that uses
// cgo or //go:embed, imports unsafe, syscall or another package that
// cells lack, or imports such a package, is refused at the import with the
// reason, and so is one whose source overflows yaegi's stack (overflows
// in modules.go: golang.org/x/text/unicode/norm, which
// github.com/samber/lo imports). With the compiled tier on, a package of
// the modules is built into a plugin when a cell first imports it, and the
// interpreter has it as a compiled package (bindModulePackages in
// compiled.go): its functions, types, variables and constants; the
// functions that a cell declares with it compile in any cell. Interpreting
// from source is the fallback: the tier off, a package that does not
// build, or once a package of the modules ran interpreted in the session
// (it may have read others from source as its dependencies). A call of
// one of its generic functions in a cell's statements is instantiated by
// the compiler (instantiateGenerics: the type checker infers the type
// arguments, a plugin holds lo.Map[int, string], the cell calls it); one
// whose type arguments a plugin cannot name (a type that a cell
// declares) is refused (checkGenericUse). Session.Modules lists the set, each pinned to the version
// resolved; package client restores it on a fresh worker.
//
// Why interpreting and not Go plugins (gophernotes' way, a plugin per
// module built with the same toolchain and module versions as the
// binary): a plugin needs cgo, which the gnnlab binary is built without,
// and a build of the module against gnnlab's exact dependency versions,
// so the go command and a C toolchain on the user's machine and a build
// of each module; it works on Linux and macOS only, and a plugin
// cannot be unloaded or replaced by a new version. Interpreting needs only
// the go command (to resolve and download), works wherever the kernel
// runs, and a local module was importable in under a second in the tests;
// the price is interpreted speed
// in the module's code and yaegi's gaps there, which fail the cell at
// the import, naming the construct.
//
// # Completion and inspection
//
// Complete and Inspect are package internal/complete's, over the
// session's globals, imports and declarations. Complete offers Go
// keywords, inspect.Builtins, session variables, functions and types,
// imported package names, the members of a package (fmt.Pri) and
// the fields and methods of a session variable (x.) that a cell may use:
// of a compiled type only the exported ones (a cell that selects an
// unexported one gets Go's compile error, not yaegi's reflect panic), of an
// interpreted type all of them, by the names the cell wrote. Inspect shows
// the declaration and doc comment of the user's declarations, of the
// gnnlab packages (a table generated with the symbols, with each symbol's
// first runnable example) and of the standard library (parsed from
// $GOROOT/src on first use; without the sources, the symbol's type). At a
// detail level above 0 (name??) it adds the declaration's source: the cell
// text of the user's, the package's source of compiled ones where the
// binary was built.
//
// # Debugging
//
// A session made with Options.Debuggable can run cells under yaegi's
// debugger (package internal/debug; the session's side in
// breakpoint.go): with SetDebug on, every piece of a cell is compiled and
// run in yaegi's Debug with breakpoints on the lines that
// DebugOptions.Breakpoints gives for each cell run so far (the pieces'
// //line directives carry the cells' lines, numbered apart per cell). A
// stop is a *Stop: its frames in cell lines, the frame's variables
// (Locals) and the session's (Variables), and Resume to continue or to
// step over, in or out by lines. Interrupting a stopped cell ends it
// without running the statement it stopped at. So that functions made
// before the debugger runs can be called under it, a debuggable session
// gives its global frame yaegi's debug data once, copies each run's into
// it, and makes the functions that cells declare under the debugger (a
// short run without breakpoints); the compiled pieces that declare
// functions are kept, for breakpoints in earlier cells. With SetDebug off
// cells run as before. Package worker speaks the Jupyter debug protocol on
// top of this. A binary built with -race is never debuggable (yaegi's
// debugger is not synchronised).
//
// # Magics
//
// Eval runs IPython-style magics (magic.go): a cell whose first line is
// "%%time", "%%timeit" or "%%writefile FILE" applies that magic to the rest
// of the cell; a line starting with % or ! in the first column, where a
// top-level Go statement could start (not inside a string literal, a
// comment, brackets or a block, nor continuing a statement), is a line
// magic (%time, %timeit, %who, %reset, %env, %gpu, %go, %compiled, %help,
// !command) run
// between the Go pieces around it. Magics that need the frontend's list
// of cells (%history, %replay, %restart) fail here with ErrFrontendMagic;
// the kernel, the REPL and the notebook runner run them through package
// client. Package magic holds their syntax and lists them all with a line
// of help each.
//
// BUG(interp): A stack overflow in compiled code (unbounded recursion)
// kills the worker process, as it does a Go program. Package client
// starts a fresh worker and replays the cells that had succeeded; the
// cell's error names them, and those it could not restore, and where the
// recursion was: the supervisor reads the function and its cell line,
// and the line of the call that recursed, from the Go runtime's report
// ("stack overflow (infinite recursion?) in down at cell[2]:1, called
// from cell[2]:2"). An interpreted recursion's report shows the
// interpreter's frames, so its error names no line. A depth check at each function entry
// would turn it into a cell error but costs more than the interrupt
// check (measured: recursive Fibonacci several times slower).
//
// BUG(interp): A compiled type with unexported fields or methods, and a
// generic declaration, compile only in a cell that declares func main;
// elsewhere they run interpreted. So does a cell declaring a package-level
// variable of a type that is not basic (var l1 = nn.NewLinear(2, 16)):
// yaegi cannot select a field through the pointer by which it reaches a
// compiled variable ("undefined selector W"). A plugin cannot import another, so a
// compiled type or variable used by a later cell after statements ran
// makes that cell interpreted (declaring it again would make another
// type, or lose the variable's value). Each compiled cell costs a plugin
// build (about 0.2 s of CPU, mostly the link) and stays loaded (about
// 0.45 MiB resident on Linux, 0.3 MiB of it private, where the session
// has the kernel drop its file's pages once loaded; 1,000 redefinitions
// of a function measured +437 MiB): plugins cannot be unloaded, so after 160
// compiled cells later ones run interpreted.
//
// BUG(interp): Compiled code shares the worker's standard library: what
// it changes there (log.SetOutput, a package's variables) changes it for
// the whole process, interpreted cells included, where interpreted cells
// have their own log and os streams. The functions of package flag
// (flag.Int, flag.Parse, ...) work on a set of the session's own in both
// kinds of cell, but flag.CommandLine and flag.Usage are still the
// process's.
//
// BUG(interp): A compiled function keeps what it printed until it
// returns where the session's stdout is not the process's (it is copied
// then); in the worker, compiled and interpreted code print to the same
// file as they go. println in compiled code writes to the process's
// stderr.
//
// BUG(interp): Under the debugger a function value made while it was off
// by a call (a function literal of a cell, a closure a function returned)
// cannot be called: the cell fails with an error named "debugger"; a stop's
// frames are the lexical ones (where a function was declared, not its
// callers); a cell ends only once the goroutines it started have ended.
//
// BUG(interp): os.Stdin, os.Stdout and os.Stderr are an io.Reader and
// io.Writers in cells, not *os.File: methods of *os.File on them fail to
// compile.
//
// BUG(interp): A variable whose type is an interpreted non-struct type
// (type celsius float64) is carried over a rebuild as its underlying type;
// variables defined by statements whose values hold interpreted structs or
// functions are dropped by a rebuild.
//
// BUG(interp): A definition in a later cell that gives a session variable
// another type and reads it on its right side sees the new variable's
// zero value: b := fmt.Sprint(b, "!") after b := 5 makes "!", not "5!",
// and f, b := 1.5, b after func f() int and b := 5 makes b 0. Of the same
// type (b := b + 1) it reads the old value (redefine.cell). Found by
// running every cell program in one session (newexpr.cell, then
// redefine.cell).
//
// BUG(interp): yaegi keeps one set of cases per select statement, shared
// by every goroutine that runs it, so a select in a function runs through
// the session's runtime instead (the rewrite pass selects: cases built
// per call; selectpumps.cell, testdata/diff/chan_select_goroutines.go). The
// select statements that keep yaegi's, where two goroutines in one
// statement at once can receive from each other's channels (and -race
// reports yaegi's run.go, _select): those of a cell's top level (one
// goroutine runs them), those of generic functions (through the runtime,
// yaegi's instance failed to store the received T), those in a function
// literal passed to a call in a loop (the literal is moved before the
// loop as it was written), those on a channel of an interface type with
// methods declared by the cells (yaegi's wrapper of its values did not
// pass through the runtime), and those receiving a type that cannot be
// named at the statement. A
// goroutine that the interrupted cell started and that waits in a
// function's select is not stopped: it waits on once the cell has ended.
//
// BUG(interp): A rebuild replays every earlier declaration as written, so
// redefining a type fails (and leaves the session as it was) when an
// earlier function or method uses what the new type lacks: after type
// square struct{ s float64 } and a method reading q.s, type square
// struct{} fails with "undefined selector: s" until the cell redefines
// the method too, and with an internal error ("incomplete type") when
// the earlier declarations used it as a generic type (type node[T ...]
// redefined as type node struct{...}). A function that uses a variable
// which the statements of its own cell define again with another type
// (done := make(chan bool, 1) and func f() { done <- true } after an
// earlier done of type chan string) is made before the statements run
// and sees the old variable: the cell fails with an internal error. All
// were found by running every cell program in one session.
//
// BUG(interp): Functions defined earlier keep calling the old variable
// when a function is redefined with a different signature, and the old
// body of a redefined variable's declaration.
//
// BUG(interp): A cell that Go refuses, whose error involves a name
// go/types does not know or a variable of an earlier cell while the
// session has a named type that is not a struct or has imported a module's
// package (go/types has the variables' types from reflect, where such a
// type is its underlying type), or a declaration that the compiled tier
// built, is not refused up front: it fails with Go's compile error only
// once yaegi has failed on it (what it printed before stays), in yaegi's
// words when yaegi's own are not its insides, or runs when yaegi accepts
// it (after type Suit int and g := 3, var s string = g fails with yaegi's
// "cannot use type int as type string in assignment", and a switch on g
// with a duplicate case runs). go/types places a few errors elsewhere than
// Go's compiler (a call's closing parenthesis); the session moves those it
// knows (an empty call, a send). A compiled function's parameter of type
// any reads interface{} in a message (reflect does not tell them apart:
// fmt.Printf() wants (string, ...interface{}), where go build says
// ...any). A recovered call of a nil func value gives reflect's string
// "reflect.Value.Call: call of nil function", not Go's runtime.Error;
// unrecovered it is reported as Go's.
//
// BUG(interp): The values of a trailing call with several results lose
// the methods of interpreted types (two() shows {1 2}, not its String()).
//
// BUG(interp): An interrupt ends the blocking calls of blocking.go for
// every goroutine that waits in them, not only the cell's: a goroutine of
// an earlier cell in time.Sleep returns into interpreted code while the
// cell is being stopped and ends there (it does not go on), and one in a
// request or pipe read sees it fail, once. In cells sync.WaitGroup is the session's type (its %T
// differs, and a compiled function that takes a *sync.WaitGroup does not
// accept it). A goroutine of the cell waiting in another compiled call
// (a mutex, a library call that does not poll gnnlib/interrupt) goes on
// when that returns, and the cell's error counts it (the goroutines that
// carry the cell's profiler label, which those it starts inherit). A cell itself still in such
// a call two seconds after the interrupt leaves the session Stuck: its
// earlier functions would answer zero values, so a Session used without
// interp/client must be replaced then; interp/client does it by itself.
// (gnnlib's CPU operations are not such calls: their parallel loops poll
// gnnlib/interrupt before each of up to 16 chunks a thread, and the GEMM
// between its blocks, so one 4000² MatMul stops within tens of
// milliseconds. Library code that loops without them and does not poll
// gnnlib/interrupt is such a call.) While the signal is raised, a
// parallel loop of gnnlib in a goroutine of an earlier cell panics with a
// *backend.Canceled (the worker's cancel check), which ends the worker as
// any panic in a goroutine does.
//
// BUG(interp): A cell interrupted while it waits in a channel operation or
// a select of its top level is stopped by closing yaegi's done channel
// after a 250 ms soft stop (so the stop takes about 270 ms, not the 10-20
// ms of the calls in blocking.go). Closures made by that cell keep the closed channel: their
// channel operations end at once when later cells call them.
//
// BUG(interp): The interpreter's memory still grows with the session,
// linearly but slowly (about 0.26 KB a cell of client.BenchmarkSoak's
// mixed notebook, whose live heap at 10,000 cells is 1.25 times that at
// 1,000): the global frame is cut back after statements that made no
// function and started no goroutine (internal/frame), but the slots of
// the temporaries of statements that made a function or started a
// goroutine stay (24 bytes each), yaegi keeps the positions of every
// evaluated source that made a function, and a whole cell's code while
// any global it defined lives. A variable defined again by a statement
// (h := ... in a later cell) gets a new slot, and the old one keeps its
// value, which functions compiled before may still read. A function
// literal that uses a variable of a block or a loop of the statements,
// or sits in a go or defer statement, is still made at the top level and
// copies the whole global frame. A value of a cell's type with methods
// that went into a compiled interface in a statement (items =
// append(items, item{"a"}) with items a []fmt.Stringer) reads its
// receiver from a temporary's slot when a method is called, so that slot
// is kept after the cell too (release.go).
//
// BUG(interp): A panic in a goroutine started by a cell, os.Exit in a
// compiled package, or a stack overflow ends the process: the kernel
// restarts the worker (see DESIGN.md).
//
// BUG(interp): Generic functions and types of the standard library are
// not in any table, so packages that are generic only (unique, weak,
// crypto/hkdf) import but offer nothing; the session provides the common
// ones of slices, maps, cmp and iter, errors.AsType, rand.N and
// atomic.Pointer as interpreted helpers (internal/rewrite/genericstd.go, internal/rewrite/genericmacro.go,
// internal/rewrite/genericatomic.go). %v and %+v of an atomic.Pointer, or
// of a struct that embeds one, print the helper's fields (a mutex and a
// pointer), not Go's.
//
// BUG(interp): With the compiled tier on, the statements of a cell cannot
// instantiate a generic function of a module's package with a type that
// a cell declares, nor use its generic types. Where they run interpreted
// (above), packages of %go get's modules run without the
// session's rewrites (yaegi's Go 1.22-era semantics: one loop variable per
// loop, no range over functions) and with yaegi's gaps, which fail at the
// import; completion and inspection do not see them, and a new version of
// a package already imported is used only after %restart. A compiled
// program keeps the build of a module's package that an earlier compiled
// cell loaded too (a process loads one build of a package): the direct
// builder links it again, and a plugin that the go command built with the
// changed module does not load, so the cell runs interpreted with a
// notice saying so. Calls of a module's generic functions need their type
// arguments written (generic.Map[string, string](xs, f)) when they run
// interpreted: the session's type checker does not see the packages of
// modules, so its typeargs pass cannot write them, and yaegi's own
// inference fails ("undefined type for U", or a wrong type argument).
//
// BUG(interp): A value of a struct type of the session that becomes an
// error where the session's rewrites do not see it (in a generic
// function's body, in a package of %go get) is yaegi's error wrapper,
// which holds the struct's last field, not the value: errors.As (and
// errors.AsType) with a target of the struct type (not a pointer) panics
// with a message saying so, err.(T) and case T do not match it, and two
// such errors compare by their last fields. Pointer targets and pointer
// receivers work.
//
// BUG(interp): An index out of range inside a loop, at the top level of a
// cell, or in a statement that calls a function first, panics with a
// runtime error "index out of range (reflect: slice index out of range)",
// without Go's index and length: a check there would slow loops several
// times (internal/rewrite/rewrite_index.go). A deferred call that is not a function literal
// (defer cleanup()) and panics still skips the calls deferred before it,
// and a recover in it does not see the panic of a deferred literal that
// ran before it (internal/rewrite/defer.go).
//
// BUG(interp): A recover in a function deferred at the top level of a cell
// does not stop the cell's panic, and a deferred call of a builtin or a
// generic function (defer close(ch)) evaluates its arguments when it runs.
//
// BUG(interp): A compound statement at the top level of a cell that
// defines variables from several results in a nested scope and also holds
// a return or goto is not rewritten, and fails as it does in yaegi.
//
// BUG(interp): Columns in error positions can be off on a line that the
// session rewrote (range over an integer, min, max).
//
// BUG(interp): yaegi cannot make some instances of generic functions
// with a type argument that the session declares (Get[Name], where
// func Get[T any](x T) T { b := &box[T]{x}; return get(b) } calls the
// generic get with a *box[T]): a cell calling one at its top level stops
// with an error naming the instance; called in a function, it fails with
// a nil pointer dereference. Builtin type arguments work.
//
// BUG(interp): Known differences from go run, each a program of
// testdata/diff listed with its reason in diff_test.go: two programs split
// across cells so that a cell uses a declaration of a later cell, which
// fails with "undefined: NAME" (cells run in order).
//
// BUG(interp): A value of a named type of the session that is not a
// struct (type level int) held in an any is, when bare, a value of its
// underlying type to the interpreter: fmt prints it without its String or
// Error method and %T names the underlying type, and type switches and
// assertions see neither its type nor its methods. yaegi keeps it bare
// when the type has no methods (%T of an ID in an any prints int), for a
// pointer to it (describe(&l) prints an address), and as a recovered panic
// value; in yaegi's wrapper (var a any = level(2), an argument
// f(level(2)), an element of a []any) fmt prints it as Go does
// (internal/rt/fmtany.go). Struct types and pointers to them are right
// (internal/rt/ifacevalue.go).
//
// BUG(interp): A map with keys of type any does not find a value of a
// struct type of the session with methods under the key it was stored
// with (m := map[any]bool{pt{1}: true}; m[pt{1}] is false), in a function
// as at the top level; without methods it does.
package interp
