// Command gen writes shapes_gen.go into the current directory (go
// generate runs it in callbackgate; see package shapegen).
package main

import (
	"log"
	"os"

	"github.com/zlua-go/zlua/callbackgate/internal/shapegen"
)

func main() {
	src, err := shapegen.Source()
	if err != nil {
		log.Fatalf("shapegen: %v", err)
	}
	if err := os.WriteFile("shapes_gen.go", src, 0o644); err != nil {
		log.Fatalf("shapegen: %v", err)
	}
}
