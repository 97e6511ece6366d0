// Package rewrite is the suite of rewrites that make a cell behave as Go
// under yaegi v0.16.1.
//
// Go features newer than yaegi, and statements that yaegi mishandles at
// the top level of a cell, are rewritten in the cell's text before it
// runs, with the types found by go/types. The type checker sees the
// session's imports, its globals of compiled types, and the types,
// constants and method signatures of earlier cells, and the signatures of
// their functions that the cell names (generic ones always): a global's
// reflect type has lost the session's named types of other kinds than
// struct (const Hearts Suit was an int to it); it learns the compiled
// packages from their symbol tables (internal/symtypes), so it needs no Go
// toolchain. Each rewrite covers a yaegi v0.16.1 behaviour, measured by
// the differential tests (interp/testdata/diff: programs run by go build and by
// the session, compared). The passes below say which.
//
// # Passes
//
// Each rewrite is a Pass of the ordered Suite: a name, a doc, the part
// of the cell it rewrites (the declarations, the statements or both) and
// its run. Apply runs the passes of the declarations in the Suite's
// order over the declarations, then those of the statements over the
// statements, recording text edits (Editor) that keep every other byte,
// and therefore positions, where it was. The session calls Apply once
// per cell, and once more when it replays its declarations (Env.Replay).
// The passes call the runtime (internal/rt) by the constants of its
// names.go, and the helper source of internal/helpers.
//
// A pass has a golden file, testdata/passes/NAME.txtar: a cell it
// rewrites, and the text after the pass alone and after the whole Suite
// (go test -run TestPasses -update writes them). A new interpreter gap
// costs one file, one Suite line and one golden file. A rewrite of
// single nodes is a pass with Node: consecutive such passes share one
// walk, which calls them on each node in Suite order, so that their
// edits at one position keep that order; a pass may keep the later ones
// from a node (Done) or the walk from the node's children (Prune).
//
// Beside the passes, EarlyMethods chooses the generic types of a cell
// whose methods the session declares with the types rather than after
// the cell's variables (earlymethods.go says why).
//
// # Pass hoist
//
//   - a variable that a top-level definition of the cell's statements
//     defines and its declarations use (y := 41; func f() int { return y + 1 })
//     is declared with the declarations, with the type go/types found,
//     and its definition becomes an assignment (y = 41) among the
//     statements: the session runs the declarations first, and yaegi
//     failed with "undefined: y" (hoist.go);
//
// # Pass tupleassigns
//
//   - A tuple assignment to names with a call on its right side (a, b = x.F(),
//     s[:n]) becomes an assignment from one call of a function literal
//     returning the values: yaegi lost the values after a method call in
//     the tuple form (rewrite_recv.go). The session declares a cell's
//     variables for its function literals only from definitions of one
//     name (interp/frames.go) for the same reason.
//
// # Pass labels
//
//   - a label with the name of a variable (start: beside start := 0) is
//     renamed: yaegi looked labels up among the variables ("label start
//     not defined");
//
// # Pass deferguards
//
//   - in a function that may defer several calls (two defer statements,
//     or one in a loop), each deferred function literal gets a guard that
//     keeps its panic for the function's call, a recover() in a later
//     deferred literal gets that newest panic, and a call deferred first
//     panics with it if none recovered it: yaegi ran the deferred calls
//     in one loop that the first panic left, so the calls deferred before
//     it did not run and their recover did not see it (defer.go);
//
// # Pass shifts
//
//   - a shift count of a signed type that is not constant (x << n)
//     becomes __gnnlab_rt.ShiftCount(int64(n)), which panics with Go's
//     runtime error when it is negative: yaegi shifted by it (1 << -1
//     gave 0);
//
// # Pass packagevars
//
//   - a variable of a compiled package of a basic kind (a string, number
//     or bool: cuda.MatMulKernel) is used through its address,
//     (*(&pkg.V)), because yaegi takes it for a constant: it refused to
//     assign to it and compared its value as of compile time;
//
// # Pass constants
//
//   - a constant declaration with several names per line has iota written
//     as its value and the implicit repetition written out: yaegi counted
//     iota per name and failed on the repetition; an implicit repetition
//     in a line of one name is written out too (yaegi failed on Warn =
//     Info * 10; Error), and a constant of a floating-point type whose
//     value shifts (KB Size = 1 << (10 * iota)) is written as its value,
//     on which yaegi failed as well;
//
// # Pass main
//
//   - main, once a cell declared it, is a function of another name (yaegi
//     would run a function named main after every later cell), and a use
//     of main names that function;
//
// # Pass atomicpointer
//
//   - atomic.Pointer[T], which yaegi's tables lack (they have no generic
//     types), is written as an interpreted generic type with the same
//     methods, whose pointer a mutex guards, compiled into the session
//     when a cell first uses it (genericatomic.go, internal/helpers);
//
// # Pass params
//
//   - an unnamed parameter of a function declaration or literal
//     (func (n Num) Eval(map[string]float64) float64) is named _: yaegi
//     stored the receiver in it;
//
// # Pass selectbreaks
//
//   - break L inside a select, of the for statement that L labels,
//     becomes a goto to a label after the loop: yaegi's break did not
//     leave the loop, and the cell hung;
//
// # Pass typeparamconv
//
//   - a conversion to a type parameter (S(x) in func Upper[S ~string])
//     calls a function literal whose result a compiled helper sets with
//     reflect's conversion: yaegi's compiler panicked on the conversion
//     when the type argument was a type of the session (Upper(Name("bob")));
//     an untyped constant argument gets its default type
//     (rewrite_typeparam.go);
//
// # Pass iter
//
//   - package iter's Seq and Seq2 are written as the function types they
//     are (iter.Seq[V] is func(func(V) bool)), which range over a function
//     handles; the session keeps import "iter" from yaegi, which has no
//     such package, and go/types sees one (iter.go). Another name of iter
//     than Pull and Pull2 (written out by the pass genericmacros) is an
//     unsupported construct naming it;
//
// # Pass methodvalues
//
//   - a method value of a value receiver that is not called at once
//     (get := t.Get, also with t a pointer) binds a copy of the receiver, and a method expression
//     ((*T).Set) becomes a function literal: yaegi read the receiver when
//     the value was called and failed to call method expressions;
//
// # Pass genericmacros
//
//   - calls of the generic functions of slices, maps and iter that
//     return or take iterators or build slices (maps.Keys, slices.Sorted,
//     slices.Collect, slices.Clone, slices.Insert, iter.Pull, and
//     sync.OnceValue and OnceValues, whose later calls return zero values
//     after the function panicked, where Go's panic again...) are
//     written out as function literals with go/types' type arguments:
//     yaegi failed to call a closure returned by a generic function, and
//     its generic append lost elements (genericmacro.go); those whose
//     result has the type of their slice or map argument (slices.Clone,
//     Insert, Delete, Compact, Concat, maps.Clone...) keep it, so the
//     clone of a named type (type IDs []int) has its methods and %T.
//     The functions are real Go in internal/helpers/std/<pkg>/macros.go:
//     go/types sees their signatures, and a call's literal is the
//     function's body with the type arguments in place of its type
//     parameters (helpers.MacroBodies);
//
// # Pass genericstd
//
//   - calls of the common generic functions of slices, maps and cmp
//     (slices.Sort, slices.SortFunc, slices.Max, slices.Index,
//     slices.BinarySearch, slices.Equal, maps.Equal, cmp.Compare, cmp.Or...),
//     for which yaegi has no
//     symbols, call interpreted versions that the session compiles when a
//     cell first needs them, instantiated with go/types' type arguments
//     (genericstd.go);
//
// # Pass typeargs
//
//   - a call of a generic function gets the type arguments go/types
//     inferred (Map[int, string](xs, f)): yaegi's inference fails with
//     several type parameters and untyped constants (Max(2.5, 1.5)); not
//     a call in a generic function whose type arguments are the caller's
//     type parameters and that yaegi infers from arguments of exactly
//     those types (Id(x) in Id2[T]), since the written Id[T](x) failed
//     for Id2[Name] (a nil pointer dereference); a call of an instance
//     with several results runs in a function literal returning them
//     (yaegi: "not a generic type" at the top level of a cell)
//     (rewrite_typeparam.go);
//   - the instances of generic functions that a cell's statements call
//     (Twice[int]) are made first in a function that never runs: first
//     made by a definition at the top level of a cell, yaegi's instance
//     came out wrong, and e := Twice(5) gave 0 (geninstance.go). An
//     instance that yaegi cannot make stops the cell with an error naming
//     it;
//
// # Pass fmtoperands
//
//   - An argument of a printing function of fmt (or of log, and of a
//     *log.Logger's printing methods: internal/rt/logprint.go) whose static type is a
//     type of the session with a method that fmt looks for (Format,
//     GoString, Error, String), in its method set or its pointer's, or
//     a slice, array, map or struct that holds one (or a pointer to
//     such a value), and each result of such a type of a call passed
//     alone (fmt.Println(two())), becomes a compiled
//     value made from the static type that calls the methods of the
//     value's method set from closures of the cell (internal/rt/fmtoperand.go):
//     yaegi gave fmt a named non-struct type (type Suit int) as its
//     underlying type, so map keys, elements and fields of such types
//     printed as numbers; it wrapped a value for fmt.Stringer when only
//     its pointer had String (func (l *listFlag) String()); it never
//     called GoString nor the String method of a nil pointer (a nil
//     *Tree), %d of a Formatter printed its elements, and the results
//     of a call lost their methods.
//
// # Pass structtags
//
//   - an unexported field of a declared struct type gets the tag
//     json:"-": yaegi exports it (x becomes Xx), and encoding/json wrote
//     and read it (rewrite_tags.go); the first field of a struct type
//     whose fields are those of another struct type of the session gets
//     the tag key gnnlabtype:"Name": yaegi gave the two one reflect type,
//     and the session's tables of methods and names, keyed by it, mixed
//     them up (A{1} printed by B's String, %T main.B); a struct type
//     without fields beside another gets a hidden field of no size, and
//     conversions and assignments of struct{}{} to it are written T{};
//
// # Pass embeddedifaces
//
//   - a struct type of a cell that embeds an interface with methods
//     (struct{ sort.Interface }) names the field by its embedded name
//     (Interface sort.Interface), so x.Interface and composite literals
//     stay as written, and gets a forwarding method with a value receiver
//     for each method that the field promoted and the type does not
//     declare: yaegi's reflect.StructOf panicked ("StructOf does not
//     support methods of embedded interfaces"). A later cell that declares
//     one of those methods rebuilds the session, whose replay then
//     forwards it no more (rewrite_embed.go);
//
// # Pass localaliases
//
//   - a type alias declared in a function (type celsius = float64),
//     which yaegi did not declare, is removed and its uses name the
//     aliased type;
//
// # Pass ifacefields
//
//   - a value assigned to a field of an interface type of a compiled
//     struct (r.Value = i * 10, r a *ring.Ring) is converted to the
//     field's type: yaegi left the function silently there; so is a
//     composite literal assigned to an interface field of any struct
//     (s.Logger = prefixLogger{"> "}), on which yaegi panicked
//     (reflect.Set: value of type interp.valueInterface is not assignable);
//
// # Pass rangeint
//
//   - for i := range n over an integer becomes a three-clause loop whose
//     bound is evaluated once: yaegi panicked inside ("nil type");
//
// # Pass rangefunc
//
//   - range over a function (Go 1.23), which yaegi lacks, calls the
//     function with the loop body as the yield function, continue and
//     break becoming return true and return false, and a return of the
//     enclosing function recording its values, which the function returns
//     after the call (rewrite_rangefunc.go);
//
// # Pass rangeindexed
//
//   - a range over a pointer to an array, and a range with a value over
//     a slice or array of channels (for _, c := range chs, the fan-in
//     idiom), become three-clause loops that index a copy of the operand:
//     yaegi panicked before the body ran (rangeIndexed in
//     rewrite_loopvar.go);
//
// # Pass loopvars
//
//   - loop variables are per iteration (Go 1.22): yaegi has one variable
//     per loop, so closures and pointers saw the last value (3 3 3 for
//     0 1 2). A for or range statement whose variables a function literal
//     uses, or whose address is taken, copies them at the top of its body
//     (and back before the next iteration when the body assigns them);
//     see rewrite_loopvar.go;
//
// # Pass compiledasserts
//
//   - an assertion, or a case of a type switch, of a value of a compiled
//     interface type (an io.Reader) to a struct type of the session is an
//     unsupported construct naming both: yaegi's wrapper of the value does
//     not keep the struct, so the assertion failed or panicked, while the
//     methods called through the interface work (rewrite_iface.go);
//
// # Pass minmax
//
//   - min and max call generic helpers, or are written as their value
//     when it is constant (const c = min(1, 2): a call is no constant):
//     yaegi failed with "constant definition loop";
//
// # Pass complexconst
//
//   - a constant complex(re, im) is written as its value: yaegi failed
//     on complex(0, math.Pi) (mismatched types untyped float and untyped
//     float64);
//
// # Pass clear
//
//   - clear calls a compiled helper (__gnnlab_rt.Clear): yaegi lacks
//     the builtin;
//
// # Pass newexpr
//
//   - new(expr) (Go 1.26), which yaegi answered with the zero value,
//     becomes a function literal returning the address of a copy;
//
// # Pass recover
//
//   - recover() becomes __gnnlab_rt.Recovered(recover()), which gives
//     the panic value: yaegi's recover returned it as a reflect.Value, so
//     r.(string) and case string failed;
//
// # Pass nesteddefers
//
//   - the arguments of a deferred call in a function are evaluated at the
//     defer statement, as Go does; yaegi evaluated them when the call ran
//     (defer fmt.Println(i) in a loop printed the last i each time); so is
//     the receiver of a method with a value receiver (defer t.done()),
//     which is copied there; and
//     a deferred function literal gets the loop variables it reads as
//     arguments (yaegi made the closure when the call ran);
//
// # Pass errorconv
//
//   - a value of an interpreted type that is not a pointer, assigned or
//     converted to error (var err error = codeErr{404}), goes through a
//     compiled identity function: yaegi has no reflect type for error and
//     stored the bare value, which fmt printed as its fields and which
//     panicked when passed on (rewrite_iface.go);
//   - == and != of values of compiled interface types (err == target)
//     call a compiled comparison that looks inside yaegi's wrappers, which
//     are not comparable (the comparison panicked), and so do those of
//     values of the session's interface types (r2 == r, r2 a Reader made
//     from a ReadWriter: yaegi's wrappers of one pointer differed, and it
//     answered false), and so do those of two empty interfaces (any(w) ==
//     any(r), w and r of two interface types); a function returning
//     a variable of an interpreted pointer type as an error returns a
//     non-nil error when the pointer is nil, as Go does (yaegi returned a
//     nil error); case error in a type switch, and x.(error), name
//     error's compiled type (__gnnlab_rt.ErrorType), which matches
//     compiled errors (fmt.Errorf's), and a type switch without a
//     variable that has a case of an interface type gets one: yaegi's
//     case error matched no compiled error, and without a variable it
//     compared type names;
//   - a type switch on an empty interface (any) with a case of a type of
//     the session, error, fmt.Stringer or an interface of the session
//     becomes an expression switch over assertions made once; x.(error),
//     x.(fmt.Stringer) and x.(I) of an any x call helpers
//     (rewrite_typeswitch.go). yaegi keeps a value of a cell's type in an
//     any either bare, without its methods (var a any = codeErr{1}, a
//     recovered panic value), or in its own wrapper (an argument f(codeErr{1})):
//     its type switch matched neither by methods (case error) nor the
//     wrapper by its type (case codeErr); its assertion to an interface
//     missed the bare value, counted the methods of *T as those of T, and
//     with a result panicked or built the methods from the caller's frame;
//     its assertion to int matched its wrapper of a type level int.
//     The session registers, for each struct type with methods and its
//     pointer, the method set and interpreted functions converting a bare
//     value to yaegi's wrapper, an error and a fmt.Stringer; compiled
//     helpers read the value out of yaegi's wrapper and use these
//     (internal/rt/ifacevalue.go), and recover() gives the value in yaegi's wrapper;
//     the same holds for a type switch on an error, and for x.(I) of an
//     error x (yaegi's assertion of an error holding a struct failed, and
//     one holding a pointer saw only the Error method of yaegi's wrapper);
//   - a type switch on a value of a compiled interface type (an
//     io.Reader) with a case of a pointer to a type of the session
//     becomes the same chain of assertions: yaegi's switch matched no
//     such case (case *countingReader), where its assertion works;
//   - an assertion or a type switch case of an interface of the session
//     tries, after yaegi's, each type of the session that implements it
//     through a method of an embedded field (any(&ByVal{}).(Counter)):
//     yaegi's assertion failed there (rewrite_promoted.go);
//   - a value of a struct type of the session that implements error and
//     becomes an error (an assignment, conversion, return, call argument,
//     composite literal element, send, fmt.Errorf operand) goes through
//     a compiled function that keeps the value beside yaegi's error
//     wrapper, which held the struct's last field: err.(T), case T,
//     errors.As with a T target, errors.Is and err == T{...} missed the
//     value (rewrite_typeswitch.go);
//   - the value of json.Marshal, MarshalIndent and (*json.Encoder).Encode,
//     and the target of json.Unmarshal and (*json.Decoder).Decode, whose
//     static type holds a type of the session with a MarshalJSON or
//     UnmarshalJSON method (as itself, a field, an element, a map value,
//     behind a pointer; not in an interface), or a struct embedding a
//     struct, go through compiled helpers given these methods: yaegi's
//     reflect types have no methods, and encoding/json called neither;
//     nor did it promote the fields of an embedded struct, which yaegi's
//     reflect type does not mark embedded (rewrite_json.go, internal/rt/json.go;
//     MarshalText and UnmarshalText are still not called); json.Unmarshal's type errors name the
//     struct type of the field (Go struct field User.id), which yaegi's
//     struct types left out (.id);
//
// # Pass recvreturns
//
//   - return <-ch becomes return T(<-ch): yaegi lost the received value
//     (reflect: Value.Set using unaddressable value) (rewrite_recv.go).
//
// # Pass builtinreturns
//
//   - A builtin call among several results of a return or values of an
//     assignment (return 1 + f(x), len(x)) becomes a conversion to its
//     type (int(len(x))): yaegi wrote its value over another result of the
//     statement (rewrite_recv.go). len and cap become int(...) also of a
//     variable that go/types does not know yet (declared later in the cell).
//
// # Pass indexguards
//
//   - a statement of a function outside loops that indexes a slice,
//     array or string with simple operands (variables, constants,
//     arithmetic, len) and calls no other function first gets a check in
//     front (if uint(i) >= uint(len(s)) {...}) that panics with Go's
//     runtime error, index out of range [5] with length 3, where yaegi's
//     reflect said "slice index out of range" (rewrite_index.go);
//
// # Pass looplitargs
//
//   - a function literal that is an argument of a call statement in a
//     loop body (wg.Go(func() {...}), g.Go(...)) is assigned to a variable
//     just before the statement: passed straight to a compiled function
//     that kept it and ran it later (l.PushBack(func() ...), wg.Go),
//     yaegi's literal saw the last iteration's variables (loopLitArgs in
//     rewrite_loopvar.go). The goroutines that wg.Go starts for
//     interpreted functions still race inside yaegi, as go statements of
//     literals did before rewrite_go.go;
//
// # Pass statements
//
//   - a compound statement (if, for, switch, select, a block) in which a
//     nested scope defines variables from several results (a, b := f(),
//     v, ok := m[k], switch y := x.(type)) runs in a function literal,
//     unless it holds return, goto, or a break or continue to an outer
//     label;
//   - a top-level definition of a session variable with the type it has
//     (b := b + 1 in a later cell) assigns it, its new variables declared
//     first: yaegi made the new, zero b when it compiled the cell, so
//     b + 1 read 0;
//   - a top-level comma-ok definition (v, ok := m[k], x.(T), <-ch)
//     declares its new variables first (var v V; var ok bool; v, ok = ...);
//   - a top-level definition whose value indexes something (x := s[i])
//     writes the variable's type (var x T = s[i]);
//
// # Pass shadows
//
//   - c := c in a block at the top level of a cell, where yaegi read the
//     new, zero c, goes through a fresh variable (rewrite_shadow.go);
//     a variable defined in a block there with the name of a session
//     variable (b := k in a range body) is renamed, since yaegi assigned
//     the session's variable instead;
//
// # Pass globalshadows
//
//   - a variable defined in a block at the top level of a cell with the
//     name of a session variable (b := k in a range body) is renamed
//     (__gnnlab_gs1_b), since yaegi assigned the session's variable
//     instead (rewrite_shadow.go);
//
// # Pass defers
//
//   - a top-level defer records its call, which runs when the cell's
//     statements end, also after a panic (defer.go); the function, its
//     receiver and its arguments are evaluated at the defer statement;
//
// # Pass golits
//
//   - A go statement that starts a function literal (go func(k int)
//     {...}(i)) calls a function declared for the literal, given pointers
//     to the variables the literal captures: yaegi's call of a literal
//     writes the literal's frame slot as the goroutine ends while the next
//     evaluation of the literal reads it without a lock — a data race
//     under -race and, at times, a "call of nil function" crash of a loop
//     that starts goroutines (rewrite_go.go). A literal that uses a type
//     or constant declared in its function stays a literal. A deferred
//     literal inside it that was given loop variables as arguments (see
//     above) keeps them as its parameters, and its call reads them
//     through the pointers (yaegi failed with undefined: i).
//
// # Pass selects
//
//   - a select statement in a function declaration or literal becomes a
//     switch on the clause that __gnnlab_rt.Select chose (a reflect.Select
//     over cases it builds per call): yaegi kept one slice of cases per
//     select statement, which every goroutine in it filled, so that
//     goroutines received from each other's channels and a worker pool
//     hung (rewrite_select.go). The clauses' bodies stay in place, with
//     their break, continue and return; a received value is asserted to
//     the channel's element type. Select also waits on gnnlib/interrupt's
//     signal, so that an interrupted cell blocked in it stops. The top
//     level of a cell and generic functions keep yaegi's select (yaegi's
//     instance failed to store a received T), as does a select on a
//     channel of an interface type with methods of the cells' (yaegi's
//     wrapper of its values failed in reflect.Set) or whose received type
//     cannot be written at the statement;
//
// # Pass funcstovars
//
//   - when the session replays its declarations into a fresh
//     interpreter (a type was redefined), each plain function
//     func f(p) r {b} becomes var f func(p) r = func(p) r {b}, so that a
//     later redefinition of f reaches its callers; a cell's functions
//     become variables in the session's runDecls instead.
package rewrite
