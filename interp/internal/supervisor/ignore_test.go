package supervisor

import (
	"os"
	"os/signal"
)

func signalIgnoreInterrupt() { signal.Ignore(os.Interrupt) }
