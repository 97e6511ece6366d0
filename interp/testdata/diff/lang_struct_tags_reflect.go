package main

import (
	"fmt"
	"reflect"
)

type Config struct {
	Host  string `env:"HOST" default:"localhost"`
	Port  int    `env:"PORT" default:"8080"`
	Debug bool
}

func main() {
	t := reflect.TypeOf(Config{})
	fmt.Println(t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fmt.Printf("%s %s env=%q default=%q\n", f.Name, f.Type, f.Tag.Get("env"), f.Tag.Get("default"))
	}
	v := reflect.ValueOf(Config{"h", 1, true})
	fmt.Println(v.Field(0).String(), v.Field(1).Int(), v.Field(2).Bool())
	fmt.Println(reflect.TypeOf(3).Kind(), reflect.TypeOf([]string{}).Elem().Kind())
}
