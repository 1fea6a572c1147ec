package main

import (
	"strings"
	"testing"
)

func TestRenderComputesMediansAndRatios(t *testing.T) {
	in := `goos: linux
BenchmarkCallAdd/native-2   	100	  20.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkCallAdd/native-2   	100	  30.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkCallAdd/native-2   	100	  25.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkCallAdd/zlua-2     	100	  50.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkCallAdd/gopherlua-2	100	 100.0 ns/op	24 B/op	 1 allocs/op
`
	table, order, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got := render(table, order)
	want := "| CallAdd | 25.0 | 50.0 | 2.00× | 100.0 | 2.00× | 0 |"
	if !strings.Contains(got, want) {
		t.Errorf("table:\n%s\nwant row %q", got, want)
	}
}
