package main

import (
	"os"
	"strings"
	"text/template"
)

type Item struct {
	Name  string
	Price float64
	Qty   int
}

func main() {
	funcs := template.FuncMap{
		"upper": strings.ToUpper,
		"total": func(p float64, q int) float64 { return p * float64(q) },
	}
	const tpl = `{{range $i, $it := .Items}}{{if $i}}, {{end}}{{upper $it.Name}} x{{$it.Qty}} = {{printf "%.2f" (total $it.Price $it.Qty)}}{{end}}
{{with .Note}}Note: {{.}}{{else}}no note{{end}}
{{len .Items}} items{{if gt (len .Items) 2}} (many){{end}}
`
	t := template.Must(template.New("order").Funcs(funcs).Parse(tpl))
	data := map[string]any{
		"Items": []Item{{"pen", 1.5, 2}, {"pad", 3.25, 1}, {"ink", 0.5, 10}},
		"Note":  "",
	}
	if err := t.Execute(os.Stdout, data); err != nil {
		panic(err)
	}
	t2 := template.Must(template.New("x").Parse(`{{define "row"}}[{{.}}]{{end}}{{template "row" "a"}}{{template "row" 3}}` + "\n"))
	t2.Execute(os.Stdout, nil)
}
