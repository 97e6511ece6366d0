package main

import (
	"fmt"
	"time"
)

func main() {
	ds := []time.Duration{0, 1, 1500 * time.Nanosecond, 2 * time.Millisecond, 90 * time.Second,
		3*time.Hour + 25*time.Minute, -5 * time.Second, 1<<63 - 1}
	for _, d := range ds {
		fmt.Println(d, d.Seconds(), int64(d))
	}
	d, err := time.ParseDuration("1h15m30.5s")
	fmt.Println(d, err, d.Minutes())
	_, err = time.ParseDuration("5 parsecs")
	fmt.Println(err)
	fmt.Println((95 * time.Minute).Round(time.Hour), (95 * time.Minute).Truncate(time.Hour))
	fmt.Printf("%v %d %s %T\n", time.Second, time.Second, 2*time.Minute, time.Second)
	t := time.Date(2024, 2, 28, 23, 0, 0, 0, time.UTC)
	t2 := t.Add(2 * time.Hour)
	fmt.Println(t2.Format("2006-01-02 15:04"), t2.Sub(t), t2.Weekday(), t2.YearDay())
	fmt.Println(t.AddDate(0, 1, 1).Format(time.RFC3339))
}
