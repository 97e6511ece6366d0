// Package progress shows the progress of a loop (epochs, batches) in
// place: in a notebook as one display that is updated (one display id,
// update_display_data), in a terminal as a one-line bar redrawn with a
// carriage return. It shows the count, the percentage, the rate, the
// estimated time left and custom fields such as the loss.
//
//	p := progress.New(100, "epochs")
//	for epoch := 0; epoch < 100; epoch++ {
//		loss := train()
//		p.Update(epoch+1, "loss", loss)
//	}
//	p.Done()
//
// # Throttling
//
// Updates are drawn at most every Interval (100 ms: ten a second), so a
// loop of a million fast steps sends a few dozen messages, not a million;
// the first update and Done always draw.
//
// # Where it draws
//
// With a display publisher (the gnnlab worker under JupyterLab, the REPL
// or the notebook runner) the bar is an HTML <progress> element with a
// text/plain twin; without one it is a line written to Options.Out
// (standard error by default). Options.Now replaces the clock in tests.
package progress
