package main

import (
	"fmt"
	"time"
)

func main() {
	d := 90 * time.Second
	fmt.Println(d, d.Minutes(), time.Duration(1500)*time.Millisecond)
	t := time.Date(2024, 2, 29, 12, 30, 0, 0, time.UTC)
	fmt.Println(t.Format("2006-01-02 15:04"), t.Weekday(), t.YearDay())
	fmt.Println(t.Add(24 * time.Hour).Format(time.RFC3339))
	d2, _ := time.ParseDuration("1h15m")
	fmt.Println(d2)
}
