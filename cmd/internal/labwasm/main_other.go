//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "labwasm is the lab's WebAssembly half: build it with GOOS=js GOARCH=wasm (redlocksim lab --export does)")
	os.Exit(2)
}
