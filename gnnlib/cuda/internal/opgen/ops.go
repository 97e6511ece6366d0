package main

// An op is one entry of a family: the name gnnlib/tensor's Backend passes
// (Map("relu", ...)), gnnlib/tensor's unary-op constant for it where there
// is one, and what the kernel computes. Its code is its index in the
// family.
type op struct {
	name     string
	tensorOp string
	doc      string
}

// A family is the ops that one group of kernels selects by an integer
// code: goVar is gnnlib/cuda's table, macro the prefix of the CUDA macros.
type family struct {
	goVar, macro, kernels string
	ops                   []op
}

// families is the one table of op codes. Appending an op to a family gives
// it the next code everywhere; the kernels' switch must then handle it
// (see "Adding a device op" in gnnlib/cuda's doc.go).
var families = []family{
	{"mapOps", "MAP", "map_fwd and map_bwd (elementwise.cu)", []op{
		{"relu", "opReLU", "max(x, 0)"},
		{"leaky_relu", "opLeakyReLU", "x > 0 ? x : p*x"},
		{"elu", "opELU", "x > 0 ? x : p*(e^x - 1)"},
		{"sigmoid", "opSigmoid", "1/(1 + e^-x)"},
		{"tanh", "opTanh", "tanh(x)"},
		{"exp", "opExp", "e^x"},
		{"log", "opLog", "ln(x)"},
		{"add_scalar", "", "x + p"},
	}},
	{"mapExtOps", "MAP_EXT", "map_ext_fwd and map_ext_bwd (elementwise.cu)", []op{
		{"gelu", "opGELU", "GELU, tanh approximation"},
		{"sqrt", "opSqrt", "sqrt(x)"},
		{"abs", "opAbs", "|x|"},
		{"square", "opSquare", "x*x"},
		{"pow", "opPow", "x^p"},
	}},
	{"binaryOps", "BINARY", "binary_op (elementwise.cu; \"div\" runs div_op)", []op{
		{"add", "", "a + b"},
		{"sub", "", "a - b"},
		{"mul", "", "a * b"},
	}},
	{"lossOps", "LOSS", "elem_loss (loss.cu)", []op{
		{"mse", "", "mean squared error"},
		{"bce_logits", "", "binary cross-entropy of sigmoid(x)"},
	}},
	{"poolOps", "POOL", "pool2d_fwd and pool2d_bwd (conv.cu)", []op{
		{"max", "", "window maximum"},
		{"avg", "", "window mean"},
	}},
}
