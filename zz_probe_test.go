package zlua_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestZZToString(t *testing.T) {
	for _, c := range []string{
		`local t = setmetatable({}, {__tostring = function(x) return tostring(x) end}) return pcall(tostring, t)`,
		`debug.setmetatable(io.stdout, nil) for i = 1, 1000 do pcall(tostring, io.stdout) end`,
	} {
		e := newEnv(t)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		done := make(chan error, 1)
		start := time.Now()
		go func() { done <- e.DoStringContext(ctx, c) }()
		select {
		case err := <-done:
			fmt.Println(time.Since(start), err)
		case <-time.After(20 * time.Second):
			fmt.Println("HUNG", c)
		}
		cancel()
	}
}
