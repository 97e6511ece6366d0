package main

import (
	"encoding/json"
	"fmt"
)

type User struct {
	Name  string   `json:"name"`
	Age   int      `json:"age,omitempty"`
	Tags  []string `json:"tags"`
	inner int
}

func main() {
	b, err := json.Marshal(User{Name: "ann", Tags: []string{"a"}})
	fmt.Println(string(b), err)
	var u User
	err = json.Unmarshal([]byte(`{"name":"bob","age":3,"tags":null}`), &u)
	fmt.Println(u.Name, u.Age, u.Tags == nil, err)
	var m map[string]any
	json.Unmarshal([]byte(`{"a":1,"b":[true,"x"]}`), &m)
	fmt.Println(m["a"], m["b"])
}
