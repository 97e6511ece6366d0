// errors.AsType (Go 1.26); go/types sees it beside the compiled
// functions of errors (errorsTypes).
package errors

import ERRORS "errors"

func PFXAsType[E error](err error) (E, bool) {
	var target E
	ok := ERRORS.As(err, &target)
	return target, ok
}
