package tensor

// CrossEntropy is the mean cross-entropy of logits [N, C] against integer
// labels, over the rows listed in rows (nil means every row): the fused,
// numerically stable -mean(log_softmax(logits)[r, labels[r]]). labels is
// indexed by row number (len(labels) == N), so the same label slice serves
// the train, validation and test index sets.
func CrossEntropy(logits *Tensor, labels []int, rows []int) *Tensor { panic("TODO") }

// NLL is the mean negative log-likelihood of log-probabilities logp [N, C]
// at labels over rows (nil means every row), like CrossEntropy after
// LogSoftmax.
func NLL(logp *Tensor, labels []int, rows []int) *Tensor { panic("TODO") }

// MSE is the mean squared error between pred and target (same shape).
func MSE(pred, target *Tensor) *Tensor { panic("TODO") }

// BCEWithLogits is the mean binary cross-entropy of sigmoid(logits) against
// target in [0, 1] (same shape), computed stably from the logits.
func BCEWithLogits(logits, target *Tensor) *Tensor { panic("TODO") }
