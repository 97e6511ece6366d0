package main

import (
	"fmt"
	"time"
)

func main() {
	t := time.Date(2024, time.March, 5, 14, 7, 9, 0, time.UTC)
	fmt.Println(t)
	fmt.Println(t.Format(time.RFC3339), t.Format("2006-01-02 15:04"), t.Format("Jan 2, 2006 at 3:04pm"))
	fmt.Println(t.Weekday(), t.YearDay(), t.Add(36*time.Hour).Format(time.DateOnly))
	d := 90*time.Minute + 30*time.Second
	fmt.Println(d, d.Hours(), d.Round(time.Hour), time.Duration(1500)*time.Microsecond)
	p, err := time.Parse("2006-01-02", "2023-12-25")
	fmt.Println(p.Month(), p.Day(), err, t.Sub(p).Hours())
	fmt.Println(t.Truncate(time.Hour).Format(time.Kitchen), t.Unix(), t.Before(p))
	_, err = time.Parse("2006-01-02", "bad")
	fmt.Println(err != nil)
}
