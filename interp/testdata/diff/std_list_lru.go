package main

import (
	"container/list"
	"fmt"
)

type entry struct {
	key string
	val int
}

type LRU struct {
	cap   int
	ll    *list.List
	index map[string]*list.Element
}

func NewLRU(n int) *LRU { return &LRU{cap: n, ll: list.New(), index: map[string]*list.Element{}} }

func (c *LRU) Get(k string) (int, bool) {
	if e, ok := c.index[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*entry).val, true
	}
	return 0, false
}

func (c *LRU) Put(k string, v int) {
	if e, ok := c.index[k]; ok {
		e.Value.(*entry).val = v
		c.ll.MoveToFront(e)
		return
	}
	c.index[k] = c.ll.PushFront(&entry{k, v})
	if c.ll.Len() > c.cap {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.index, last.Value.(*entry).key)
	}
}

func (c *LRU) Keys() []string {
	var ks []string
	for e := c.ll.Front(); e != nil; e = e.Next() {
		ks = append(ks, e.Value.(*entry).key)
	}
	return ks
}

func main() {
	c := NewLRU(2)
	c.Put("a", 1)
	c.Put("b", 2)
	c.Get("a")
	c.Put("c", 3)
	fmt.Println(c.Keys())
	_, ok := c.Get("b")
	fmt.Println(ok)
	c.Put("a", 10)
	v, _ := c.Get("a")
	fmt.Println(v, c.Keys())
}
