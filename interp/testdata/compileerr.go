// A compile error names the cell and line.
// cell
x := 1
// cell
y := x + 1

z := undefinedName + y
// Error:
compile error: undefined: undefinedName
cell[2]:3:6: undefined: undefinedName
