// A syntax error names the cell and line.
// cell
a := 1
b := )
// Error:
compile error: expected operand
cell[1]:2:6
