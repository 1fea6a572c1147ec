package zlua_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zlua-go/zlua"
)

// A Go function whose first parameter is a context.Context gets the
// context of the script's call: here a slow lookup stops when the
// script's deadline passes, and the script ends with the error it
// returned, as an interruption. Lua passes only the arguments after the
// context.
func Example_goFunctionContext() {
	env, _ := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	defer env.Close()

	env.SetGlobal("lookup", func(ctx context.Context, key string) (string, error) {
		select {
		case <-time.After(time.Hour): // a slow backend
			return "value of " + key, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := env.DoStringContext(ctx, `local v = lookup("answer") print(v)`)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), time.Since(start) < time.Minute)
	fmt.Println(err)
	// Output:
	// true true
	// zlua: interrupted: context deadline exceeded ((dostring):1: context deadline exceeded)
}
