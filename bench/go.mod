module github.com/zlua-go/zlua/bench

go 1.26.0

require (
	github.com/yuin/gopher-lua v1.1.2
	github.com/zlua-go/zlua v0.0.0
	golang.org/x/sys v0.50.0
)

replace github.com/zlua-go/zlua => ../
