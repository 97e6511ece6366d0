package compiled

import "testing"

func TestBlankEmbedImport(t *testing.T) {
	tests := []struct{ text, want string }{
		{"import _ \"embed\"\nvar x = 1", "                \nvar x = 1"},
		{"import (\n\t_ \"embed\"\n\t\"fmt\"\n)\nfmt.Println(1)", "import (\n\t         \n\t\"fmt\"\n)\nfmt.Println(1)"},
		{"import \"fmt\"; import _ \"embed\"\n", "import \"fmt\";                 \n"},
		{"import f \"fmt\"\nimport e \"embed\"\n", "import f \"fmt\"\nimport e \"embed\"\n"},
		{"x := 1\nimport _ \"embed\"", "x := 1\nimport _ \"embed\""}, // not among the leading imports
	}
	for _, tt := range tests {
		var e editList
		blankEmbedImport(tt.text, &e)
		if got := e.apply(tt.text); got != tt.want {
			t.Errorf("blankEmbedImport(%q) gives %q, want %q", tt.text, got, tt.want)
		}
	}
}
