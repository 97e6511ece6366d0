package main

import (
	"encoding/json"
	"fmt"
)

type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

type Shape struct {
	Kind   string  `json:"kind"`
	Points []Point `json:"points"`
	Closed bool    `json:"closed,omitempty"`
}

func main() {
	shapes := []Shape{{"tri", []Point{{0, 0}, {1, 0}, {0, 1}}, true}, {"line", []Point{{2, 2}, {3, 3}}, false}}
	b, _ := json.Marshal(shapes)
	fmt.Println(string(b))
	var back []Shape
	if err := json.Unmarshal(b, &back); err != nil {
		panic(err)
	}
	fmt.Println(len(back), back[0].Kind, back[0].Points[2].Y, back[1].Closed)
	var m map[string][]int
	json.Unmarshal([]byte(`{"a":[1,2],"b":[]}`), &m)
	fmt.Println(m["a"], len(m["b"]), m["c"] == nil)
	raw := json.RawMessage(`{"z":1}`)
	out, _ := json.Marshal(map[string]any{"raw": raw, "n": nil})
	fmt.Println(string(out))
}
