//go:build ignore

// The helpers compiled into every interpreter (interp's helperSrc),
// evaluated as they are here. min and max are generic over the ordered
// basic types because yaegi lacks the builtins. The file imports the
// runtime's package (interp/internal/rt), which exists only in the
// interpreter: the build ignores it, and interp's TestHelperSource
// type-checks it against the runtime's table.
package main

import __gnnlab_rt "gnnlabrt"

func __gnnlab_min[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string](x T, y ...T) T {
	for _, v := range y {
		if v < x || v != v {
			x = v
		}
	}
	return x
}

func __gnnlab_new[T any](v T) *T { return &v }

type __gnnlab_errT struct{}

func (__gnnlab_errT) Error() string { return "" }

func __gnnlab_err() error { return __gnnlab_errT{} }

func __gnnlab_wrapany(v any) any { return v }

func __gnnlab_aserr(v any) (__gnnlab_rt.ErrorType, bool) {
	if e, ok := __gnnlab_rt.AsError(v); ok || v == nil {
		return e, ok
	}
	if _, ok := v.(__gnnlab_rt.ErrorType); !ok {
		return nil, false
	}
	return v.(__gnnlab_rt.ErrorType), true
}

func __gnnlab_asstr(v any) (__gnnlab_rt.StringerType, bool) {
	if s, ok := __gnnlab_rt.AsStringer(v); ok || v == nil {
		return s, ok
	}
	if _, ok := v.(__gnnlab_rt.StringerType); !ok {
		return nil, false
	}
	return v.(__gnnlab_rt.StringerType), true
}

func __gnnlab_musterr(v any) __gnnlab_rt.ErrorType {
	if e, ok := __gnnlab_aserr(v); ok {
		return e
	}
	return __gnnlab_rt.MustError(v)
}

func __gnnlab_muststr(v any) __gnnlab_rt.StringerType {
	if s, ok := __gnnlab_asstr(v); ok {
		return s
	}
	return __gnnlab_rt.MustStringer(v)
}

func __gnnlab_iface(v any) any {
	if w, ok := __gnnlab_rt.Rewrap(v); ok {
		return w
	}
	return v
}

func __gnnlab_max[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string](x T, y ...T) T {
	for _, v := range y {
		if v > x || v != v {
			x = v
		}
	}
	return x
}
