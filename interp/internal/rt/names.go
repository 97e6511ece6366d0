package rt

// The contract between the rewrites and the runtime: rewritten code
// imports the runtime's package (Path) as Import and calls its helpers by
// these names, each Import + "." + the name it has in the runtime's table
// (Runtime.table). rt_test.go proves that the table holds every one of
// them and no other, and that the rewrites write no other.

const (
	// Path is the import path of the runtime's package in the interpreter.
	Path = "gnnlabrt"
	// Import is the name rewritten code and the helper source give it.
	Import = "__gnnlab_rt"
)

// The helpers, as rewritten code writes them.
const (
	Values        = Import + ".Values"        // wraps the value of a cell's trailing expression (the session)
	Error         = Import + ".Error"         // converts a value to error (internal/rewrite/rewrite_iface.go)
	Equal         = Import + ".Equal"         // compares two interface values as Go does (internal/rewrite/rewrite_iface.go)
	ErrorPtr      = Import + ".ErrorPtr"      // is a nil-checking Error of a pointer receiver (internal/rewrite/rewrite_iface.go)
	ErrorType     = Import + ".ErrorType"     // is the type error (internal/rewrite/rewrite_iface.go, the helper source)
	Named         = Import + ".Named"         // names an argument of a printing call (internal/rewrite/rewrite_fmt.go)
	Recovered     = Import + ".Recovered"     // is recover() as Go gives it (internal/rewrite/rewrite.go)
	ShiftCount    = Import + ".ShiftCount"    // is a signed shift count that panics when negative (internal/rewrite/rewrite.go)
	Rewrap        = Import + ".Rewrap"        // rewraps an interpreted value for an interface (the helper source)
	Methods       = Import + ".Methods"       // registers the method set of a cell's type (methodTypes)
	AsError       = Import + ".AsError"       // asserts error (the helper source)
	AsStringer    = Import + ".AsStringer"    // asserts fmt.Stringer (the helper source)
	MustError     = Import + ".MustError"     // converts to error or panics (the helper source)
	MustStringer  = Import + ".MustStringer"  // converts to fmt.Stringer or panics (the helper source)
	HasMethods    = Import + ".HasMethods"    // reports whether a value has methods (internal/rewrite/rewrite_typeswitch.go)
	PrintOperand  = Import + ".PrintOperand"  // is a value printed by fmt (internal/rewrite/rewrite_typeswitch.go)
	StructError   = Import + ".StructError"   // is a struct value as an error (internal/rewrite/rewrite_typeswitch.go)
	Wrapped       = Import + ".Wrapped"       // reports whether a value is in yaegi's wrapper (internal/rewrite/rewrite_typeswitch.go)
	NotType       = Import + ".NotType"       // is the panic of a failed assertion (internal/rewrite/rewrite_typeswitch.go)
	NamedKind     = Import + ".NamedKind"     // registers a named non-struct type with methods (methodTypes)
	ErrorfOperand = Import + ".ErrorfOperand" // is a value printed by fmt.Errorf (internal/rewrite/rewrite_typeswitch.go)
	Conversion    = Import + ".Conversion"    // is the panic of a failed interface conversion (internal/rewrite/rewrite_typeswitch.go)
	StringerType  = Import + ".StringerType"  // is the type fmt.Stringer (methodTypes, the helper source)
	Operand       = Import + ".Operand"       // is a value with its Go type name for fmt (internal/rewrite/rewrite_fmt.go)
	List          = Import + ".List"          // is a slice or array for fmt (internal/rewrite/rewrite_fmt.go)
	Map           = Import + ".Map"           // is a map for fmt (internal/rewrite/rewrite_fmt.go)
	Struct        = Import + ".Struct"        // is a struct for fmt (internal/rewrite/rewrite_fmt.go)
	Iface         = Import + ".Iface"         // is an interface value for fmt (internal/rewrite/rewrite_fmt.go)
	Ptr           = Import + ".Ptr"           // is a pointer for fmt (internal/rewrite/rewrite_fmt.go)
	State         = Import + ".State"         // is the type fmt.State (internal/rewrite/rewrite_fmt.go)
	Clear         = Import + ".Clear"         // is the builtin clear (internal/rewrite/rewrite.go)
	Defer         = Import + ".Defer"         // records a deferred call of a cell's top level (defer.go)
	Name          = Import + ".Name"          // registers a cell's struct type for fmt (structTypes)
	FmtAny        = Import + ".FmtAny"        // registers a cell's type for values in an any (anyTypes)
	EmptyTag      = Import + ".EmptyTag"      // is the field added to an empty struct with a twin (internal/rewrite/rewrite_tags.go)
	NewPanics     = Import + ".NewPanics"     // guards deferred function literals (defer.go)
	IndexOut      = Import + ".IndexOut"      // is Go's index out of range panic (internal/rewrite/rewrite_index.go)
	ConvertTo     = Import + ".ConvertTo"     // converts to a type parameter (internal/rewrite/rewrite_typeparam.go)
	JSONValue     = Import + ".JSONValue"     // is a value for json.Marshal (internal/rewrite/rewrite_json.go)
	JSONTarget    = Import + ".JSONTarget"    // is a target for json.Unmarshal (internal/rewrite/rewrite_json.go)
	JSONDecode    = Import + ".JSONDecode"    // is json.Decoder.Decode (internal/rewrite/rewrite_json.go)
	JSONEncode    = Import + ".JSONEncode"    // is json.Encoder.Encode (internal/rewrite/rewrite_json.go)
	Select        = Import + ".Select"        // is a select statement (internal/rewrite/rewrite_select.go)
)
