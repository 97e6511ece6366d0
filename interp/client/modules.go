package client

import (
	"context"
	"strings"
)

// Modules of %go get across workers.
//
// The session in the worker answers %go get (package interp) and reports
// after every cell the modules it holds, pinned to the versions that it
// resolved (workerproto.Event.Modules). A fresh worker, after a crash or
// %restart, starts without them: before its first cell the client runs
// %go get with that list, so that cells importing a module's packages,
// replayed ones included, work as before. The module cache keeps the
// downloads, so this needs no network.

// restoreModules gives a fresh worker the modules of the one before it.
// A failure is reported on stderr and does not stop the cell that
// follows.
func (c *Client) restoreModules(ctx context.Context) error {
	c.mu.Lock()
	mods := c.modules
	c.restore = false
	c.mu.Unlock()
	if len(mods) == 0 {
		return nil
	}
	c.note("Restoring the modules of %go get: " + strings.Join(mods, ", ") + "\n")
	res, err := c.run(ctx, Cell{Code: "%go get " + strings.Join(mods, " "), Silent: true}, false, ignore)
	if err != nil {
		return err
	}
	if res.Error != nil {
		c.cfg.Output("stderr", "Restoring the modules failed: "+firstLine(res.Error)+"\n")
	}
	return nil
}

// Modules returns what %go get added to the session, as the worker last
// reported it.
func (c *Client) Modules() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.modules...)
}
