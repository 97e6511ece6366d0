package main

import (
	"fmt"
	"time"
)

func main() {
	t := time.Date(2023, time.December, 31, 22, 30, 0, 0, time.UTC)
	fmt.Println(t.Format(time.RFC1123), t.Unix())
	t2 := t.Add(3 * time.Hour)
	fmt.Println(t2.Year(), t2.Month(), t2.Day(), t2.Hour(), t2.Weekday())
	fmt.Println(t2.Sub(t), t2.After(t), t.Before(t2), t.Equal(t))
	p, err := time.Parse("2006-01-02 15:04", "2024-02-29 08:15")
	fmt.Println(p, err)
	_, err = time.Parse("2006-01-02", "2023-02-30")
	fmt.Println(err)
	fmt.Println(p.Truncate(24*time.Hour).Format(time.DateTime), p.Format("Jan _2 Mon 3:04PM"))
	fmt.Println(time.Unix(0, 0).UTC(), time.Duration(1e9).String())
	d := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).Sub(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC))
	fmt.Println(d.Hours()/24, time.March.String())
	loc := time.FixedZone("X", 2*3600)
	fmt.Println(t.In(loc).Format(time.RFC3339))
}
