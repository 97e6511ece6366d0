package compiled

import (
	"strings"
	"testing"
)

// TestSatisfies: a module that the binary links meets a module's
// requirement of it at the binary's version or an older one (minimal
// version selection keeps the binary's); a newer one is refused, naming
// both versions and what to do.
func TestSatisfies(t *testing.T) {
	const p = "golang.org/x/text"
	for _, tc := range []struct {
		required, built string
		ok              bool
	}{
		{"v0.28.0", "v0.28.0", true},
		{"v0.22.0", "v0.28.0", true},  // samber/lo v1.53.0 and this binary
		{"v0.9.0", "v0.28.0", true},   // numerically, not as text
		{"v0.30.0", "v0.28.0", false}, // newer
		{"v0.28.1", "v0.28.0", false},
		{"v1.0.0", "v0.28.0", false},
		// pseudo-versions: before the release they precede, after the
		// one they follow
		{"v0.0.0-20240101000000-abcdefabcdef", "v0.28.0", true},
		{"v0.28.1-0.20250101000000-abcdefabcdef", "v0.28.0", false},
		{"v0.28.1-0.20250101000000-abcdefabcdef", "v0.28.1", true},
		{"v0.28.0", "v0.28.1-0.20250101000000-abcdefabcdef", true},
		{"v0.0.0-20240101000000-abcdefabcdef", "v0.0.0-20250101000000-abcdefabcdef", true},
		{"v0.0.0-20260101000000-abcdefabcdef", "v0.0.0-20250101000000-abcdefabcdef", false},
		// +incompatible: compared without the build suffix
		{"v2.0.0+incompatible", "v2.1.0+incompatible", true},
		{"v2.2.0+incompatible", "v2.1.0+incompatible", false},
		{"v2.1.0+incompatible", "v2.1.0+incompatible", true},
		// not versions: only equal ones are met
		{"master", "master", true},
		{"master", "v0.28.0", false},
	} {
		ok, err := satisfies(p, tc.required, tc.built)
		if ok != tc.ok || (err == nil) != tc.ok {
			t.Errorf("satisfies(%s, %s) = %v, %v; want %v", tc.required, tc.built, ok, err, tc.ok)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), p+"@"+tc.required) || !strings.Contains(err.Error(), tc.built)) {
			t.Errorf("satisfies(%s, %s): %v, want both versions named", tc.required, tc.built, err)
		}
	}
	_, err := satisfies(p, "v0.30.0", "v0.28.0")
	if want := "it requires golang.org/x/text@v0.30.0, newer than the v0.28.0 the binary was built with (a process holds one version of a package): use a version of the module that requires golang.org/x/text v0.28.0 or older, or rebuild gnnlab with go get golang.org/x/text@v0.30.0 in its checkout"; err == nil || err.Error() != want {
		t.Errorf("refusal:\n got %v\nwant %s", err, want)
	}
}
