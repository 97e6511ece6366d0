package main

import (
	"encoding/json"
	"fmt"
	"os"
)

type Address struct {
	City string `json:"city"`
	Zip  string `json:"zip,omitempty"`
}

type User struct {
	ID    int               `json:"id"`
	Name  string            `json:"name"`
	Email string            `json:"email,omitempty"`
	Admin bool              `json:"-"`
	Addr  *Address          `json:"address,omitempty"`
	Tags  []string          `json:"tags"`
	Meta  map[string]string `json:"meta,omitempty"`
	Score float64           `json:"score,string"`
}

func main() {
	u := User{ID: 1, Name: "Ann", Admin: true, Addr: &Address{City: "Oslo"}, Score: 9.5}
	b, err := json.Marshal(u)
	fmt.Println(string(b), err)
	var back User
	err = json.Unmarshal([]byte(`{"id":2,"name":"Bo","tags":["x","y"],"address":{"city":"Rome","zip":"001"},"score":"3.25","extra":1}`), &back)
	fmt.Println(err, back.ID, back.Name, back.Tags, back.Addr.City, back.Addr.Zip, back.Score)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(map[string]any{"b": 1, "a": []int{1, 2}})
	var anyv any
	json.Unmarshal([]byte(`{"n":1.5,"s":"x","l":[true,null]}`), &anyv)
	m := anyv.(map[string]any)
	fmt.Println(m["n"], m["s"], m["l"])
	err = json.Unmarshal([]byte(`{"id":"notanumber"}`), &back)
	fmt.Println(err)
}
