package worker

import "testing"

// TestMurmur2 checks the cells' file names against the hash of
// JupyterLab 4.6's debugger: the values were computed by its function in
// the installed jlab_core bundle, run in node with this seed.
func TestMurmur2(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
	}{
		{"", 3990065800},
		{"a", 2167009006},
		{"ab", 2805137849},
		{"abc", 3350977461},
		{"x := 1\ny := x + 1\nfmt.Println(y)", 2249414802},
		{"héllo, 世界", 3039637217},
	} {
		if got := murmur2([]byte(c.in), hashSeed); got != c.want {
			t.Errorf("murmur2(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
