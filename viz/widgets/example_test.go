package widgets_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/viz/widgets"
)

// Outside a notebook a slider still holds its value and calls back; in
// JupyterLab the cell's last expression, s, shows it.
func ExampleNewIntSlider() {
	s := widgets.NewIntSlider("hidden", 4, 64, 16)
	s.OnChange(func(v int) { fmt.Println("hidden is now", v) })
	s.SetValue(32)
	s.SetValue(1000) // clamped to the maximum
	fmt.Println(s.Value())
	// Output:
	// hidden is now 32
	// hidden is now 64
	// 64
}

// Interact runs its function at once and after each change of a control.
func ExampleInteract() {
	lr := widgets.NewFloatSlider("lr", 0.001, 0.1, 0.001, 0.01)
	widgets.Interact(func() { fmt.Println("training with lr", lr.Value()) }, lr)
	lr.SetValue(0.05)
	// Output:
	// training with lr 0.01
	// training with lr 0.05
}

// A bad argument gives a widget that shows the error.
func ExampleDropdown_Err() {
	d := widgets.NewDropdown("model", []string{"gcn", "gat"}, "mlp")
	fmt.Println(d.Err())
	// Output:
	// widgets: Dropdown: value "mlp" is not one of the options ["gcn" "gat"]
}
