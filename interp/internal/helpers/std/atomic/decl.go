package atomic

type Pointer[T any] struct{ p *T }

func (x *Pointer[T]) Load() *T                        { return x.p }
func (x *Pointer[T]) Store(val *T)                    {}
func (x *Pointer[T]) Swap(new *T) (old *T)            { return nil }
func (x *Pointer[T]) CompareAndSwap(old, new *T) bool { return false }
