package tensor

import "github.com/gnnlab/gnnlab/gnnlib/tensor/internal/contract"

// The plumbing that backend packages and gnnlib/nn call is exported by
// gnnlib/tensor/backend, not here: this package hands it over through
// internal/contract, which backend imports.
func init() {
	contract.NewOp = newOp
	contract.OpStart = opStart
	contract.FromStorage = fromStorage
	contract.SetOpHook = setOpHook
	contract.OwnsGrad = ownsGrad
}
