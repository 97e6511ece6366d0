package interp

import "os"

// debugSrc, set by GNNLAB_DEBUG_SRC=1, has the session write each piece
// of rewritten source it gives yaegi on standard error (for bug reports).
var debugSrc = os.Getenv("GNNLAB_DEBUG_SRC") != ""
