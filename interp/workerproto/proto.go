package workerproto

import "encoding/json"

// Request operations, sent kernel → worker.
const (
	OpExecute    = "execute"     // run Code
	OpComplete   = "complete"    // completions at Cursor in Code
	OpInspect    = "inspect"     // documentation at Cursor in Code
	OpIsComplete = "is_complete" // is Code a complete cell?
	OpInputReply = "input_reply" // answer to an EvInputRequest (Value)
	OpShutdown   = "shutdown"    // exit cleanly
	// OpInterrupt cancels execute request ID, running or still queued in
	// the worker; it is read while a cell runs, so unlike SIGINT it cannot
	// miss a cell that has not started yet. The kernel sends both.
	OpInterrupt = "interrupt"
	// OpComm passes a comm message of the frontend (Comm) to the
	// session's comms. Like OpInterrupt it is read while a cell runs: the
	// worker delivers comm messages on a goroutine of their own, in order,
	// during cells and between them, and answers each with EvDone (Error
	// set when the comm was unknown or refused).
	OpComm = "comm"
	// OpDebug passes a request of the Jupyter debug protocol (a DAP
	// request, Debug) to the session's debugger. Like OpComm it is read
	// while a cell runs (a stopped cell is asked for its frames); the
	// worker answers with EvDone carrying the DAP response in Debug.
	OpDebug = "debug"
)

// Request is a frame from the kernel to the worker.
type Request struct {
	ID              uint64            `json:"id"`
	Op              string            `json:"op"`
	Code            string            `json:"code,omitempty"`
	Cursor          int               `json:"cursor,omitempty"` // in Unicode code points, as Jupyter counts
	DetailLevel     int               `json:"detail_level,omitempty"`
	Silent          bool              `json:"silent,omitempty"`
	AllowStdin      bool              `json:"allow_stdin,omitempty"`
	UserExpressions map[string]string `json:"user_expressions,omitempty"`
	Value           string            `json:"value,omitempty"` // input_reply
	// EOF, on input_reply, is the end of standard input (Value is
	// ignored): the cell's read returns io.EOF, and so does every later
	// read of the same cell.
	EOF bool `json:"eof,omitempty"`
	// Count, on execute, is the execution count the frontend shows for
	// the cell (In [8]): the cell's positions read cell[8] whatever the
	// worker ran before. Zero lets the worker number it after the last.
	Count int `json:"count,omitempty"`
	// MsgID, on execute, is the msg_id of the frontend's request: what
	// the cell shows reaches the frontend under it, and a widget Output
	// capturing the cell's output names it.
	MsgID string `json:"msg_id,omitempty"`
	// Comm is the message of OpComm.
	Comm *CommMsg `json:"comm,omitempty"`
	// Debug is the DAP request of OpDebug.
	Debug json.RawMessage `json:"debug,omitempty"`
}

// Event kinds, sent worker → kernel.
const (
	EvReady         = "ready"          // worker is up (ID 0), Text holds the banner
	EvDisplay       = "display"        // display_data (Bundle)
	EvUpdateDisplay = "update_display" // update_display_data (Bundle with DisplayID)
	EvClearOutput   = "clear_output"   // clear_output (Wait)
	EvResult        = "result"         // execute_result (Bundle)
	EvError         = "error"          // the cell failed (Error)
	EvInputRequest  = "input_request"  // the cell reads os.Stdin (Prompt, Password)
	EvDone          = "done"           // last event of every request; carries replies
	// EvComm is a comm message of the session to the frontend (Comm):
	// the kernel publishes it as comm_open, comm_msg or comm_close, and
	// relays the frontend's messages on a comm it opened back (OpComm).
	EvComm = "comm"
	// EvDebug is an event of the debug protocol (a DAP event, Debug),
	// such as "stopped": the kernel publishes it as debug_event.
	EvDebug = "debug"
	// EvStream is text that a comm message's handler (a widget callback)
	// printed while it ran on the worker's comm goroutine: Text, on the
	// stream that Stream names ("stdout" or "stderr"). The kernel
	// publishes it as a stream message of that comm message, so that it
	// reaches the Output widget capturing under its msg_id and never the
	// running cell. Everything else printed travels on the worker's
	// standard output and error pipes.
	EvStream = "stream"
)

// Event is a frame from the worker to the kernel. ID is the request it
// belongs to.
type Event struct {
	ID       uint64     `json:"id"`
	Kind     string     `json:"kind"`
	Bundle   *Bundle    `json:"bundle,omitempty"`
	Wait     bool       `json:"wait,omitempty"`
	Prompt   string     `json:"prompt,omitempty"`
	Password bool       `json:"password,omitempty"`
	Error    *CellError `json:"error,omitempty"`
	Text     string     `json:"text,omitempty"`
	// Stream names the stream of EvStream: "stdout" or "stderr".
	Stream string `json:"stream,omitempty"`
	// Sync, when not zero, is the number of the sync mark (see SyncMark)
	// that the worker wrote to its stdout and stderr just before this
	// event: the kernel publishes the event after the output before it.
	Sync uint64 `json:"sync,omitempty"`
	// Comm is the message of EvComm.
	Comm *CommMsg `json:"comm,omitempty"`
	// Debug is the DAP event of EvDebug, or the DAP response on the
	// EvDone of an OpDebug.
	Debug json.RawMessage `json:"debug,omitempty"`

	// Replies, on EvDone.
	Complete        *CompleteReply            `json:"complete,omitempty"`
	Inspect         *InspectReply             `json:"inspect,omitempty"`
	IsComplete      *IsCompleteReply          `json:"is_complete,omitempty"`
	UserExpressions map[string]map[string]any `json:"user_expressions,omitempty"`
	// Modules, on the EvDone of an OpExecute, lists what %go get has
	// added to the session, pinned (interp.Session.Modules), so that the
	// client can restore the set on a fresh worker.
	Modules []string `json:"modules,omitempty"`
	// Stuck, on the EvDone of an OpExecute, says that the cell was
	// interrupted but did not stop: it waits in a compiled call that the
	// session cannot end (interp.Session.Stuck), and the functions defined
	// before it would answer zero values. The client replaces the worker
	// and replays the session.
	Stuck bool `json:"stuck,omitempty"`
}

// Bundle is a display bundle as it travels from the worker to the
// kernel: the JSON of viz/display's Bundle, which the worker renders and
// the kernel relays without knowing viz. The two types have the same
// fields, so each converts to the other.
type Bundle struct {
	Data      map[string]any `json:"data"`
	Metadata  map[string]any `json:"metadata"`
	DisplayID string         `json:"display_id,omitempty"`
}

// Text returns the bundle's text/plain entry; every bundle the session
// renders as a cell's result carries one.
func (b Bundle) Text() string {
	s, _ := b.Data["text/plain"].(string)
	return s
}

// CellError is a failed cell, in Jupyter's terms.
type CellError struct {
	Name      string   `json:"ename"`  // one of the Ename constants (ename.go)
	Value     string   `json:"evalue"` // the message
	Traceback []string `json:"traceback"`
}

// CompleteReply holds the matches for a complete request.
type CompleteReply struct {
	Matches     []string `json:"matches"`
	CursorStart int      `json:"cursor_start"`
	CursorEnd   int      `json:"cursor_end"`
}

// InspectReply holds the documentation for an inspect request.
type InspectReply struct {
	Found bool   `json:"found"`
	Text  string `json:"text,omitempty"` // text/plain
}

// IsCompleteReply is the answer to an is_complete request.
type IsCompleteReply struct {
	Status string `json:"status"` // complete, incomplete, invalid, unknown
	Indent string `json:"indent,omitempty"`
}

// CommsEnv names the environment variable with which a host that relays
// comms (the kernel) starts its worker, set to "1": only then does the
// session open comms (viz/widgets). The REPL and the notebook runner have
// no frontend to show them, and their widgets show as text.
const CommsEnv = "GNNLAB_WORKER_COMMS"

// DebugEnv names the environment variable with which a host that speaks
// the Jupyter debug protocol (the kernel) starts its worker, set to "1":
// the session is then made debuggable (interp.Options.Debuggable) and
// answers OpDebug.
const DebugEnv = "GNNLAB_WORKER_DEBUG"

// Comm message types, CommMsg.Type.
const (
	CommOpen    = "open"  // comm_open
	CommMessage = "msg"   // comm_msg
	CommClose   = "close" // comm_close
)

// CommMsg is a Jupyter comm message on its way between the frontend and
// the session, in either direction. It has the fields of viz/comm's Msg,
// in the same order, so each converts to the other (the kernel knows
// nothing of viz).
type CommMsg struct {
	Type     string          `json:"type"` // CommOpen, CommMessage or CommClose
	ID       string          `json:"comm_id"`
	Target   string          `json:"target_name,omitempty"` // on CommOpen
	Data     json.RawMessage `json:"data,omitempty"`        // the content's data
	Metadata map[string]any  `json:"metadata,omitempty"`    // the message's metadata
	Buffers  [][]byte        `json:"buffers,omitempty"`
	// MsgID is the msg_id of the frontend's message (OpComm), or of the
	// frontend message that this one answers (EvComm; empty for none).
	MsgID string `json:"msg_id,omitempty"`
}
