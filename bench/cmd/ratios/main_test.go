package main

import (
	"strings"
	"testing"
)

const sample = `cpu: Test CPU
backend: Lua 5.4.4
BenchmarkCalls_LuaToGo/native-2   	100	  20.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkCalls_LuaToGo/native-2   	100	  30.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkCalls_LuaToGo/native-2   	100	  25.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkCalls_LuaToGo/zlua-2     	100	  50.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkCalls_LuaToGo/gopherlua-2	100	 100.0 ns/op	24 B/op	 1 allocs/op
BenchmarkPump_DrainRefs/zlua-2    	100	  10.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkFrame_Entities1k/zlua-2  	20	 2616334 ns/op	 94.39 cache-hit-%	 2567926 p50-ns/frame	 157737 B/op	 7092 allocs/op
BenchmarkScale_PumpDrain1e6/zlua-2	1	  53.9 ns/ref	 579190 p50-ns/pump	 1014055 p99-ns/pump
`

func TestRenderComputesMediansAndRatios(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	got := render(res)
	for _, want := range []string{
		"### Calls",
		"| LuaToGo | 25.0 | 50.0 | 2.00× | 100.0 | 2.00× | 0 |",
		"| DrainRefs | – | 10.0 | – | – | – | 0 |",
		"| PumpDrain1e6 | p99-ns/pump | 1014055 |",
		"| Entities1k | zlua | cache-hit-% | 94.4 |",
		"| Entities1k | zlua | p50-ns/frame | 2567926 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if len(res.info) != 2 {
		t.Errorf("context lines = %v", res.info)
	}
	svg := chart(res)
	if !strings.Contains(svg, "Calls LuaToGo") || !strings.Contains(svg, "2.00×") || strings.Contains(svg, "PumpDrain") {
		t.Errorf("chart:\n%s", svg)
	}
}
