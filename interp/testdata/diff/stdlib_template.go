package main

import (
	"os"
	"text/template"
)

type Item struct {
	Name  string
	Price float64
}

func main() {
	t := template.Must(template.New("t").Parse("{{range .}}{{.Name}}: {{printf \"%.2f\" .Price}}\n{{end}}"))
	t.Execute(os.Stdout, []Item{{"apple", 1.5}, {"pear", 2}})
}
