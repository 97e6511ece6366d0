package main

// An op is one entry of a family: its Go constant, the name it prints
// as, gnnlib/tensor's unary-op constant for it where there is one, and
// what the kernel computes. An element-wise map (MapOp) also names its
// reference: call is the *tensor.Tensor method call computing it on the
// host (p the parameter), grad its derivative as a float32 expression of
// v = x, w = y = op(x) and p, and param and input the parameter and the
// input ("randn" or "positive") of its case in devicetest.OpCases. From
// them opgen writes gnnlib/devicetest's Fake.Map and Fake.MapGrad and
// the op's parity case, so a new map needs no hand-written test code.
type op struct {
	goName, name, tensorOp, doc string
	call, grad, param, input    string
}

// A family is the ops that one group of kernels selects by an integer
// code, its index in the family: macro is the prefix of the CUDA macros,
// kernel the kernel's name (or, for the element-wise maps, its prefix,
// completed by fwd or bwd).
type family struct {
	macro, kernel, kernels string
	ops                    []op
}

// An opType is one Go type of op codes, the argument of one or two
// Backend methods; its values number the ops of all its families in
// order.
type opType struct {
	goName, doc string
	families    []family
}

// types is the one table of op codes. Appending an op to a family gives
// it the next code everywhere; the kernels' switch must then handle it
// (see "Adding a device op" in gnnlib/tensor/backend's doc.go).
var types = []opType{
	{"MapOp", "an element-wise op of Backend.Map and Backend.MapGrad; p is the op's parameter where it has one", []family{
		{"MAP", "map_", "map_fwd and map_bwd (elementwise.cu)", []op{
			{"MapReLU", "relu", "opReLU", "max(x, 0)", "ReLU()", "ifElse(v > 0, 1, 0)", "", "randn"},
			{"MapLeakyReLU", "leaky_relu", "opLeakyReLU", "x > 0 ? x : p*x", "LeakyReLU(p)", "ifElse(v > 0, 1, p)", "0.2", "randn"},
			{"MapELU", "elu", "opELU", "x > 0 ? x : p*(e^x - 1)", "ELU(p)", "ifElse(v > 0, 1, w+p)", "1", "randn"},
			{"MapSigmoid", "sigmoid", "opSigmoid", "1/(1 + e^-x)", "Sigmoid()", "w * (1 - w)", "", "randn"},
			{"MapTanh", "tanh", "opTanh", "tanh(x)", "Tanh()", "1 - w*w", "", "randn"},
			{"MapExp", "exp", "opExp", "e^x", "Exp()", "w", "", "randn"},
			{"MapLog", "log", "opLog", "ln(x)", "Log()", "1 / v", "", "positive"},
			{"MapAddScalar", "add_scalar", "", "x + p", "AddScalar(p)", "1", "3", "randn"},
		}},
		{"MAP_EXT", "map_ext_", "map_ext_fwd and map_ext_bwd (elementwise.cu)", []op{
			{"MapGELU", "gelu", "opGELU", "GELU, tanh approximation", "GELU()", "geluGrad(v)", "", "randn"},
			{"MapSqrt", "sqrt", "opSqrt", "sqrt(x)", "Sqrt()", "0.5 / w", "", "positive"},
			{"MapAbs", "abs", "opAbs", "|x|", "Abs()", "ifElse(v > 0, 1, ifElse(v < 0, -1, 0))", "", "randn"},
			{"MapSquare", "square", "opSquare", "x*x", "Square()", "2 * v", "", "randn"},
			{"MapPow", "pow", "opPow", "x^p", "Pow(p)", "p * float32(math.Pow(float64(v), float64(p-1)))", "3", "randn"},
		}},
	}},
	{"BinaryOp", "an element-wise op of two operands, Backend.Binary", []family{
		{"BINARY", "binary_op", "binary_op (elementwise.cu; BINARY_DIV runs div_op)", []op{
			{"BinaryAdd", "add", "", "a + b", "", "", "", ""},
			{"BinarySub", "sub", "", "a - b", "", "", "", ""},
			{"BinaryMul", "mul", "", "a * b", "", "", "", ""},
			{"BinaryDiv", "div", "", "a / b", "", "", "", ""},
		}},
	}},
	{"LossOp", "an element-wise loss of Backend.Loss", []family{
		{"LOSS", "elem_loss", "elem_loss (loss.cu)", []op{
			{"LossMSE", "mse", "", "mean squared error", "", "", "", ""},
			{"LossBCELogits", "bce_logits", "", "binary cross-entropy of sigmoid(x)", "", "", "", ""},
		}},
	}},
	{"PoolOp", "a window reduction of Backend.Pool2D and Backend.Pool2DGrad", []family{
		{"POOL", "pool2d_", "pool2d_fwd and pool2d_bwd (conv.cu)", []op{
			{"PoolMax", "max", "", "window maximum", "", "", "", ""},
			{"PoolAvg", "avg", "", "window mean", "", "", "", ""},
		}},
	}},
}
