package widgets

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// IntSlider is a slider of integers (ipywidgets' IntSlider).
type IntSlider struct {
	*model
	value, min, max, step int
	on                    listeners[int]
}

// NewIntSlider returns a slider from min to max (step 1) showing value,
// labelled description. A value outside [min, max] is clamped, as
// ipywidgets does; min > max is an error that the widget shows (Err).
func NewIntSlider(description string, min, max, value int) *IntSlider {
	s := &IntSlider{value: value, min: min, max: max, step: 1}
	st := viewState("IntSliderModel", "IntSliderView", controlsModule, moduleVersion)
	if min > max {
		s.model = &model{name: "IntSlider", state: st}
		s.fail("min %d is greater than max %d", min, max)
		return s
	}
	s.value = clampInt(value, min, max)
	for k, v := range map[string]any{
		"description": description, "min": min, "max": max, "step": 1, "value": s.value,
		"orientation": "horizontal", "readout": true, "readout_format": "d", "continuous_update": true,
	} {
		st[k] = v
	}
	s.model = newModel("IntSlider", st, "SliderStyleModel")
	s.text = func() string {
		return fmt.Sprintf("IntSlider(value=%d, min=%d, max=%d, description=%s)", s.value, s.min, s.max, quote(description))
	}
	s.update = func(key string, raw json.RawMessage) ([]func(), error) {
		if key != "value" {
			return nil, s.store(key, raw)
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, err
		}
		return s.setLocked(int(math.Round(f)), false), nil
	}
	return s
}

// Value returns the slider's value; a cell may read it while the user
// moves the slider (a training loop reading its learning rate).
func (s *IntSlider) Value() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value
}

// SetValue moves the slider to v (clamped to its range) in every view and
// calls the OnChange functions if the value changed.
func (s *IntSlider) SetValue(v int) {
	for _, f := range s.setLocked(v, true) {
		call(s.name, f)
	}
}

func (s *IntSlider) setLocked(v int, send bool) []func() {
	v = clampInt(v, s.min, s.max)
	return change(s.model, &s.value, v, "value", &s.on, v, send)
}

// OnChange adds f to the functions called with the new value each time
// it changes, from the frontend or from SetValue.
func (s *IntSlider) OnChange(f func(v int)) { s.on.add(s.model, f) }

func (s *IntSlider) observe(f func()) { s.on.watch(s.model, f) }

func clampInt(v, lo, hi int) int {
	return min(max(v, lo), hi)
}

// FloatSlider is a slider of float64 values (ipywidgets' FloatSlider).
type FloatSlider struct {
	*model
	value, min, max, step float64
	on                    listeners[float64]
}

// NewFloatSlider returns a slider from min to max in steps of step showing
// value, labelled description. A value outside [min, max] is clamped;
// min > max, a step that is not positive, or a NaN is an error that the
// widget shows (Err).
func NewFloatSlider(description string, min, max, step, value float64) *FloatSlider {
	s := &FloatSlider{value: value, min: min, max: max, step: step}
	st := viewState("FloatSliderModel", "FloatSliderView", controlsModule, moduleVersion)
	switch {
	case math.IsNaN(min) || math.IsNaN(max) || math.IsNaN(step) || math.IsNaN(value):
		s.model = &model{name: "FloatSlider", state: st}
		s.fail("NaN argument (min %v, max %v, step %v, value %v)", min, max, step, value)
		return s
	case min > max:
		s.model = &model{name: "FloatSlider", state: st}
		s.fail("min %v is greater than max %v", min, max)
		return s
	case step <= 0:
		s.model = &model{name: "FloatSlider", state: st}
		s.fail("step %v is not positive", step)
		return s
	}
	s.value = math.Min(math.Max(value, min), max)
	for k, v := range map[string]any{
		"description": description, "min": min, "max": max, "step": step, "value": s.value,
		"orientation": "horizontal", "readout": true, "readout_format": readoutFormat(step), "continuous_update": true,
	} {
		st[k] = v
	}
	s.model = newModel("FloatSlider", st, "SliderStyleModel")
	s.text = func() string {
		return fmt.Sprintf("FloatSlider(value=%g, min=%g, max=%g, step=%g, description=%s)", s.value, s.min, s.max, s.step, quote(description))
	}
	s.update = func(key string, raw json.RawMessage) ([]func(), error) {
		if key != "value" {
			return nil, s.store(key, raw)
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, err
		}
		return s.setLocked(f, false), nil
	}
	return s
}

// readoutFormat shows as many decimals as the step has (d3-format).
func readoutFormat(step float64) string {
	digits := 0
	for digits < 8 && math.Abs(step*math.Pow10(digits)-math.Round(step*math.Pow10(digits))) > 1e-9 {
		digits++
	}
	return "." + strconv.Itoa(max(digits, 1)) + "f"
}

// Value returns the slider's value.
func (s *FloatSlider) Value() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value
}

// SetValue moves the slider to v (clamped to its range) and calls the
// OnChange functions if the value changed.
func (s *FloatSlider) SetValue(v float64) {
	for _, f := range s.setLocked(v, true) {
		call(s.name, f)
	}
}

func (s *FloatSlider) setLocked(v float64, send bool) []func() {
	if math.IsNaN(v) {
		return nil
	}
	v = math.Min(math.Max(v, s.min), s.max)
	return change(s.model, &s.value, v, "value", &s.on, v, send)
}

// OnChange adds f to the functions called with the new value each time
// it changes.
func (s *FloatSlider) OnChange(f func(v float64)) { s.on.add(s.model, f) }

func (s *FloatSlider) observe(f func()) { s.on.watch(s.model, f) }

// Dropdown chooses one of a list of strings (ipywidgets' Dropdown).
type Dropdown struct {
	*model
	options []string
	index   int
	on      listeners[string]
}

// NewDropdown returns a dropdown of options with value chosen. An empty
// list, or a value that is not one of the options, is an error that the
// widget shows (Err).
func NewDropdown(description string, options []string, value string) *Dropdown {
	d := &Dropdown{options: append([]string(nil), options...), index: -1}
	for i, o := range options {
		if o == value {
			d.index = i
			break
		}
	}
	st := viewState("DropdownModel", "DropdownView", controlsModule, moduleVersion)
	switch {
	case len(options) == 0:
		d.model = &model{name: "Dropdown", state: st}
		d.fail("no options")
		return d
	case d.index < 0:
		d.model = &model{name: "Dropdown", state: st}
		d.fail("value %q is not one of the options %q", value, options)
		return d
	}
	st["description"] = description
	st["_options_labels"] = d.options
	st["index"] = d.index
	d.model = newModel("Dropdown", st, "DescriptionStyleModel")
	d.text = func() string {
		return fmt.Sprintf("Dropdown(value=%s, options=%q, description=%s)", quote(d.options[d.index]), d.options, quote(description))
	}
	d.update = func(key string, raw json.RawMessage) ([]func(), error) {
		if key != "index" {
			return nil, d.store(key, raw)
		}
		var i *int
		if err := json.Unmarshal(raw, &i); err != nil {
			return nil, err
		}
		if i == nil || *i < 0 || *i >= len(d.options) {
			return nil, fmt.Errorf("index %s out of range [0, %d)", raw, len(d.options))
		}
		return d.setLocked(*i, false), nil
	}
	return d
}

// Value returns the chosen option.
func (d *Dropdown) Value() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.index < 0 {
		return ""
	}
	return d.options[d.index]
}

// SetValue chooses v and calls the OnChange functions if the choice
// changed; it returns an error naming the options if v is not one.
func (d *Dropdown) SetValue(v string) error {
	for i, o := range d.options {
		if o == v {
			for _, f := range d.setLocked(i, true) {
				call(d.name, f)
			}
			return nil
		}
	}
	return fmt.Errorf("widgets: Dropdown: %q is not one of the options %q", v, d.options)
}

func (d *Dropdown) setLocked(i int, send bool) []func() {
	if d.err != nil { // set at construction only
		return nil
	}
	return change(d.model, &d.index, i, "index", &d.on, d.options[i], send)
}

// OnChange adds f to the functions called with the new choice.
func (d *Dropdown) OnChange(f func(v string)) { d.on.add(d.model, f) }

func (d *Dropdown) observe(f func()) { d.on.watch(d.model, f) }

// Checkbox is a boolean (ipywidgets' Checkbox).
type Checkbox struct {
	*model
	value bool
	on    listeners[bool]
}

// NewCheckbox returns a checkbox labelled description, checked if value.
func NewCheckbox(description string, value bool) *Checkbox {
	c := &Checkbox{value: value}
	st := viewState("CheckboxModel", "CheckboxView", controlsModule, moduleVersion)
	st["description"] = description
	st["value"] = value
	st["indent"] = true
	c.model = newModel("Checkbox", st, "CheckboxStyleModel")
	c.text = func() string { return fmt.Sprintf("Checkbox(value=%t, description=%s)", c.value, quote(description)) }
	c.update = func(key string, raw json.RawMessage) ([]func(), error) {
		if key != "value" {
			return nil, c.store(key, raw)
		}
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		return c.setLocked(b, false), nil
	}
	return c
}

// Value reports whether the box is checked.
func (c *Checkbox) Value() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value
}

// SetValue checks or clears the box and calls the OnChange functions if
// that changed it.
func (c *Checkbox) SetValue(v bool) {
	for _, f := range c.setLocked(v, true) {
		call(c.name, f)
	}
}

func (c *Checkbox) setLocked(v bool, send bool) []func() {
	return change(c.model, &c.value, v, "value", &c.on, v, send)
}

// OnChange adds f to the functions called with the new value.
func (c *Checkbox) OnChange(f func(v bool)) { c.on.add(c.model, f) }

func (c *Checkbox) observe(f func()) { c.on.watch(c.model, f) }

// Text is a line of text input (ipywidgets' Text).
type Text struct {
	*model
	value string
	on    listeners[string]
}

// NewText returns a text field labelled description holding value. The
// frontend sends each keystroke, so OnChange sees every edit.
func NewText(description, value string) *Text {
	t := &Text{value: value}
	st := viewState("TextModel", "TextView", controlsModule, moduleVersion)
	st["description"] = description
	st["value"] = value
	st["placeholder"] = ""
	st["continuous_update"] = true
	t.model = newModel("Text", st, "TextStyleModel")
	t.text = func() string {
		return fmt.Sprintf("Text(value=%s, description=%s)", quote(t.value), quote(description))
	}
	t.update = func(key string, raw json.RawMessage) ([]func(), error) {
		if key != "value" {
			return nil, t.store(key, raw)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return t.setLocked(s, false), nil
	}
	return t
}

// Value returns the text.
func (t *Text) Value() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.value
}

// SetValue replaces the text and calls the OnChange functions if it
// changed.
func (t *Text) SetValue(v string) {
	for _, f := range t.setLocked(v, true) {
		call(t.name, f)
	}
}

func (t *Text) setLocked(v string, send bool) []func() {
	return change(t.model, &t.value, v, "value", &t.on, v, send)
}

// OnChange adds f to the functions called with the new text.
func (t *Text) OnChange(f func(v string)) { t.on.add(t.model, f) }

func (t *Text) observe(f func()) { t.on.watch(t.model, f) }

// Button is a push button (ipywidgets' Button).
type Button struct {
	*model
	onClick  []func()
	watchers []func()
}

// NewButton returns a button labelled description.
func NewButton(description string) *Button {
	b := &Button{}
	st := viewState("ButtonModel", "ButtonView", controlsModule, moduleVersion)
	st["description"] = description
	st["button_style"] = ""
	st["icon"] = ""
	st["tooltip"] = nil
	b.model = newModel("Button", st, "ButtonStyleModel")
	b.text = func() string { return fmt.Sprintf("Button(description=%s)", quote(description)) }
	b.custom = func(content json.RawMessage) []func() {
		var c struct {
			Event string `json:"event"`
		}
		if err := json.Unmarshal(content, &c); err != nil || c.Event != "click" {
			return nil
		}
		return b.clicks()
	}
	return b
}

func (b *Button) clicks() []func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append(append([]func(){}, b.onClick...), b.watchers...)
}

// OnClick adds f to the functions called when the button is clicked.
func (b *Button) OnClick(f func()) {
	b.mu.Lock()
	b.onClick = append(b.onClick, f)
	b.mu.Unlock()
}

// Click calls the OnClick functions, as a click in the frontend does.
func (b *Button) Click() {
	for _, f := range b.clicks() {
		call(b.name, f)
	}
}

func (b *Button) observe(f func()) {
	b.mu.Lock()
	b.watchers = append(b.watchers, f)
	b.mu.Unlock()
}
