//go:build !cuda

package cuda

// openDriver is the default build's stand-in: there is no driver to open.
func openDriver(int) (driver, error) { return nil, ErrNoCUDA }

// Built reports whether this binary was built with the cuda tag.
const Built = false
