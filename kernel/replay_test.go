package kernel

import "testing"

func TestReplaysForgetOldest(t *testing.T) {
	r := &replays{size: 3}
	for _, tt := range []struct {
		sig  string
		want bool
	}{
		{"a", true}, {"a", false}, {"b", true}, {"c", true}, {"b", false},
		{"d", true}, // forgets a
		{"a", true}, {"c", false}, {"", true}, {"", true},
	} {
		if got := r.fresh([]byte(tt.sig)); got != tt.want {
			t.Errorf("fresh(%q) = %v, want %v", tt.sig, got, tt.want)
		}
	}
}
