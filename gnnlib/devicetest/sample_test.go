package devicetest_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
)

func TestSampledLayersOnFake(t *testing.T) {
	devicetest.CheckSampledLayers(t, &devicetest.Fake{}, devicetest.Tolerance{Op: 1e-5, Loss: 1e-5, Value: 1e-5})
}
