// fmt and shown values use String() of interpreted types.
// cell
import "fmt"
type celsius float64
func (c celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }
type temp struct{ c celsius }
func (t *temp) String() string { return "temp " + t.c.String() }
c := celsius(21.5)
fmt.Println(c)
fmt.Printf("%v %s\n", c, c)
t := &temp{c}
fmt.Println(t)
// cell
c
// Output:
21.5°C
21.5°C 21.5°C
temp 21.5°C
21.5°C
