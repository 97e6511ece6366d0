package main

import (
	"context"
	"errors"
	"fmt"
)

var errShutdown = errors.New("shutting down")

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	fmt.Println(ctx.Err(), context.Cause(ctx))
	cancel(errShutdown)
	<-ctx.Done()
	fmt.Println(ctx.Err(), context.Cause(ctx))
	fmt.Println(errors.Is(context.Cause(ctx), errShutdown))
	child, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	fmt.Println(child.Err(), context.Cause(child))
	type key string
	vctx := context.WithValue(context.Background(), key("user"), "ann")
	fmt.Println(vctx.Value(key("user")), vctx.Value(key("none")))
	wc := context.WithoutCancel(ctx)
	fmt.Println(wc.Err(), wc.Value(key("user")))
	c3, cancel3 := context.WithCancel(context.Background())
	stop := context.AfterFunc(c3, func() {})
	cancel3()
	fmt.Println(stop())
}
