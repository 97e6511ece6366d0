package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Notebook is an nbformat 4 notebook.
type Notebook struct {
	Cells         []*Cell        `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

// Cell is one cell: "code", "markdown" or "raw".
type Cell struct {
	ID       string         `json:"id,omitempty"`
	CellType string         `json:"cell_type"`
	Metadata map[string]any `json:"metadata"`
	Source   Source         `json:"source"`
	// Code cells only; nil ExecutionCount is JSON null.
	ExecutionCount *int            `json:"execution_count,omitempty"`
	Outputs        []*Output       `json:"outputs,omitempty"`
	Attachments    json.RawMessage `json:"attachments,omitempty"`
}

// MarshalJSON writes execution_count and outputs for every code cell, as
// nbformat requires (null and [] when unset), and neither for the others.
func (c *Cell) MarshalJSON() ([]byte, error) {
	type plain Cell
	if c.CellType != "code" {
		p := plain(*c)
		p.ExecutionCount, p.Outputs = nil, nil
		return json.Marshal(p)
	}
	outs := c.Outputs
	if outs == nil {
		outs = []*Output{}
	}
	return json.Marshal(struct {
		plain
		ExecutionCount *int      `json:"execution_count"`
		Outputs        []*Output `json:"outputs"`
	}{plain(*c), c.ExecutionCount, outs})
}

// Output is one output of a code cell.
type Output struct {
	OutputType string `json:"output_type"` // stream, display_data, execute_result, error
	// stream
	Name string `json:"name,omitempty"`
	Text Source `json:"text,omitempty"`
	// display_data, execute_result
	Data           map[string]any `json:"data,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	ExecutionCount *int           `json:"execution_count,omitempty"`
	// error
	Ename     string   `json:"ename,omitempty"`
	Evalue    string   `json:"evalue,omitempty"`
	Traceback []string `json:"traceback,omitempty"`

	displayID string // for update_display_data; not saved
}

// MarshalJSON writes the fields each output type requires.
func (o *Output) MarshalJSON() ([]byte, error) {
	m := map[string]any{"output_type": o.OutputType}
	switch o.OutputType {
	case "stream":
		m["name"], m["text"] = o.Name, o.Text
	case "display_data", "execute_result":
		m["data"], m["metadata"] = orEmpty(o.Data), orEmpty(o.Metadata)
		if o.OutputType == "execute_result" {
			m["execution_count"] = o.ExecutionCount
		}
	case "error":
		tb := o.Traceback
		if tb == nil {
			tb = []string{}
		}
		m["ename"], m["evalue"], m["traceback"] = o.Ename, o.Evalue, tb
	}
	return json.Marshal(m)
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Source is multi-line text, stored as a JSON string or a list of lines
// (both are valid nbformat); it is written as a list of lines, as
// Jupyter does.
type Source string

// UnmarshalJSON accepts a string or a list of strings.
func (s *Source) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		*s = Source(str)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("notebook: source is neither a string nor a list of strings: %w", err)
	}
	*s = Source(strings.Join(lines, ""))
	return nil
}

// MarshalJSON writes the lines, each keeping its newline.
func (s Source) MarshalJSON() ([]byte, error) {
	lines := []string{}
	rest := string(s)
	for rest != "" {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			lines = append(lines, rest)
			break
		}
		lines = append(lines, rest[:i+1])
		rest = rest[i+1:]
	}
	return json.Marshal(lines)
}

// Tags returns the cell's metadata tags.
func (c *Cell) Tags() []string {
	raw, _ := c.Metadata["tags"].([]any)
	var tags []string
	for _, t := range raw {
		if s, ok := t.(string); ok {
			tags = append(tags, s)
		}
	}
	return tags
}

// HasTag reports whether the cell is tagged tag.
func (c *Cell) HasTag(tag string) bool {
	for _, t := range c.Tags() {
		if t == tag {
			return true
		}
	}
	return false
}

// ErrInvalid is wrapped by the errors of Validate.
var ErrInvalid = errors.New("notebook: invalid nbformat 4")

// Read decodes a notebook and validates its structure.
func Read(r io.Reader) (*Notebook, error) {
	var nb Notebook
	dec := json.NewDecoder(r)
	if err := dec.Decode(&nb); err != nil {
		return nil, fmt.Errorf("notebook: decode: %w", err)
	}
	if err := Validate(&nb); err != nil {
		return nil, err
	}
	return &nb, nil
}

// ReadFile reads a notebook file.
func ReadFile(path string) (*Notebook, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("notebook: %w", err)
	}
	defer f.Close()
	nb, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nb, nil
}

// Write encodes nb as Jupyter does (one-space indent, a final newline).
func Write(w io.Writer, nb *Notebook) error {
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	for _, c := range nb.Cells {
		if c.Metadata == nil {
			c.Metadata = map[string]any{}
		}
	}
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return fmt.Errorf("notebook: encode: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// WriteFile writes nb to path.
func WriteFile(path string, nb *Notebook) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("notebook: %w", err)
	}
	if err := Write(f, nb); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Validate checks the structure that nbformat 4 requires of nb: the
// version, the cell types, and for code cells the output types with their
// required fields.
func Validate(nb *Notebook) error {
	if nb.NBFormat != 4 {
		return fmt.Errorf("%w: nbformat is %d, want 4", ErrInvalid, nb.NBFormat)
	}
	for k, c := range nb.Cells {
		if c == nil {
			return fmt.Errorf("%w: cell %d is null", ErrInvalid, k)
		}
		switch c.CellType {
		case "markdown", "raw":
			if len(c.Outputs) > 0 {
				return fmt.Errorf("%w: %s cell %d has outputs", ErrInvalid, c.CellType, k)
			}
		case "code":
			for j, o := range c.Outputs {
				if err := validOutput(o); err != nil {
					return fmt.Errorf("%w: cell %d, output %d: %v", ErrInvalid, k, j, err)
				}
			}
		default:
			return fmt.Errorf("%w: cell %d has cell_type %q", ErrInvalid, k, c.CellType)
		}
	}
	return nil
}

func validOutput(o *Output) error {
	switch o.OutputType {
	case "stream":
		if o.Name != "stdout" && o.Name != "stderr" {
			return fmt.Errorf("stream name %q", o.Name)
		}
	case "display_data", "execute_result":
		if o.Data == nil {
			return errors.New("no data")
		}
		for mime := range o.Data {
			if !strings.Contains(mime, "/") {
				return fmt.Errorf("data key %q is not a MIME type", mime)
			}
		}
	case "error":
		if o.Ename == "" {
			return errors.New("error without ename")
		}
	default:
		return fmt.Errorf("output_type %q", o.OutputType)
	}
	return nil
}
