package cuda

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
)

// TestMain turns on, for the whole test binary, the switches that are
// off by default and that GNNLAB_TEST_ON names (comma-separated; see
// testSwitches), so that one device run checks the suite with them
// before they become defaults: GNNLAB_TEST_ON=SAGEFreeSums go test -tags
// cuda ./gnnlib/cuda.
func TestMain(m *testing.M) {
	if err := switchesOn(os.Getenv("GNNLAB_TEST_ON")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// testSwitches are the switches GNNLAB_TEST_ON may name: those off by
// default until a device run passes them. (PostFillCopy, ColSumVec4,
// BF16Add and SAGEFused, named here for the run that passed them, have
// been on since 2026-12-07, and GATv2EdgeAuto since the suite passed
// with it later that day.)
var testSwitches = map[string]*bool{
	"SAGEFreeSums":  &nn.SAGEFreeSums,
	"GATv2EdgeCoef": &tune.GATv2EdgeCoef,
}

// switchesOn sets the switches list names (comma-separated) on.
func switchesOn(list string) error {
	if list == "" {
		return nil
	}
	for _, name := range strings.Split(list, ",") {
		sw, ok := testSwitches[strings.TrimSpace(name)]
		if !ok {
			return fmt.Errorf("GNNLAB_TEST_ON=%q: no switch %q (want some of %s)", list, name, strings.Join(slices.Sorted(maps.Keys(testSwitches)), ", "))
		}
		*sw = true
	}
	fmt.Fprintf(os.Stderr, "gnnlib/cuda tests: on for this run: %s\n", list)
	return nil
}
