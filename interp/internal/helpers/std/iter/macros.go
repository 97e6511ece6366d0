package iter

// The generic functions of iter that the session writes out at each call
// (genericmacro.go in internal/rewrite): go/types sees their signatures,
// and a call becomes the function's literal, its type parameters replaced
// by the type arguments go/types inferred and Seq[V] and Seq2[K, V] by the
// function types they are (helpers.MacroBodies).
//
// Pull runs the sequence in a goroutine that hands each value over a
// channel; yaegi's return <-ch returned a wrong value, so the functions
// receive into a variable first.

func Pull[V any](seq Seq[V]) (func() (V, bool), func()) {
	req := make(chan bool)
	resp := make(chan V)
	fin := make(chan struct{})
	started := false
	over := false
	run := func() {
		defer close(fin)
		if <-req {
			seq(func(v V) bool { resp <- v; more := <-req; return more })
		}
	}
	next := func() (V, bool) {
		var zero V
		if over {
			return zero, false
		}
		if !started {
			started = true
			go run()
		}
		req <- true
		select {
		case v := <-resp:
			return v, true
		case <-fin:
			over = true
			return zero, false
		}
	}
	stop := func() {
		if over {
			return
		}
		over = true
		if !started {
			return
		}
		select {
		case req <- false:
		case <-fin:
		}
		<-fin
	}
	return next, stop
}

func Pull2[K, V any](seq Seq2[K, V]) (func() (K, V, bool), func()) {
	type kv struct {
		k K
		v V
	}
	req := make(chan bool)
	resp := make(chan kv)
	fin := make(chan struct{})
	started := false
	over := false
	run := func() {
		defer close(fin)
		if <-req {
			seq(func(k K, v V) bool { resp <- kv{k, v}; more := <-req; return more })
		}
	}
	next := func() (K, V, bool) {
		var zk K
		var zv V
		if over {
			return zk, zv, false
		}
		if !started {
			started = true
			go run()
		}
		req <- true
		select {
		case p := <-resp:
			return p.k, p.v, true
		case <-fin:
			over = true
			return zk, zv, false
		}
	}
	stop := func() {
		if over {
			return
		}
		over = true
		if !started {
			return
		}
		select {
		case req <- false:
		case <-fin:
		}
		<-fin
	}
	return next, stop
}
