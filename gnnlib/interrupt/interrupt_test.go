package interrupt_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
)

func TestSignal(t *testing.T) {
	defer interrupt.Clear()
	if interrupt.Raised() || interrupt.Check("op") != nil || interrupt.Context().Err() != nil {
		t.Fatal("the signal is raised before Raise")
	}
	before := interrupt.Context()
	interrupt.Raise()
	err := interrupt.Check("nn.Op: step 3")
	var ie *interrupt.Error
	if !errors.Is(err, interrupt.ErrInterrupted) || !errors.As(err, &ie) || ie.Op != "nn.Op: step 3" {
		t.Errorf("Check after Raise = %v, want an *Error wrapping ErrInterrupted", err)
	}
	if err.Error() != "nn.Op: step 3: interrupted" {
		t.Errorf("Error() = %q", err.Error())
	}
	if before.Err() == nil || interrupt.Context().Err() == nil {
		t.Error("Context is not cancelled after Raise")
	}
	interrupt.Clear()
	if interrupt.Raised() || interrupt.Context().Err() != nil {
		t.Error("the signal is still raised after Clear")
	}
}

func ExampleCheck() {
	defer interrupt.Clear()
	train := func(epochs int) error {
		for e := range epochs {
			if err := interrupt.Check("train: epoch " + string(rune('0'+e))); err != nil {
				return err
			}
			if e == 2 {
				interrupt.Raise() // as the session does when the user interrupts
			}
		}
		return nil
	}
	err := train(5)
	fmt.Println(err, errors.Is(err, interrupt.ErrInterrupted))
	// Output: train: epoch 3: interrupted true
}
