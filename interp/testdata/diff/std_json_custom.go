package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

type Color int

const (
	Red Color = iota
	Green
)

var colorNames = []string{"red", "green"}

func (c Color) MarshalJSON() ([]byte, error) {
	return json.Marshal(colorNames[c])
}

func (c *Color) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for i, n := range colorNames {
		if n == strings.ToLower(s) {
			*c = Color(i)
			return nil
		}
	}
	return fmt.Errorf("unknown color %q", s)
}

type Item struct {
	Name  string `json:"name"`
	Color Color  `json:"color"`
}

func main() {
	b, err := json.Marshal([]Item{{"leaf", Green}, {"rose", Red}})
	fmt.Println(string(b), err)
	var items []Item
	err = json.Unmarshal([]byte(`[{"name":"sky","color":"GREEN"}]`), &items)
	fmt.Println(err, items[0].Name, items[0].Color)
	err = json.Unmarshal([]byte(`[{"name":"x","color":"blue"}]`), &items)
	fmt.Println(err)
}
