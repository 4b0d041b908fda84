//go:build js && wasm

package main

import (
	"fmt"
	"os"
	"syscall/js"
)

// main registers redlocksimLab(target, client) for the page and waits;
// the page calls it for every request it would send the served lab.
func main() {
	version := "unknown"
	if len(os.Args) > 1 {
		version = os.Args[1]
	}
	srv, err := newLab(version)
	if err != nil {
		fmt.Fprintln(os.Stderr, "redlocksim lab:", err)
		os.Exit(1)
	}
	js.Global().Set("redlocksimLab", js.FuncOf(func(_ js.Value, args []js.Value) any {
		target, client := "", ""
		if len(args) > 0 {
			target = args[0].String()
		}
		if len(args) > 1 {
			client = args[1].String()
		}
		r := answer(srv, target, client)
		return map[string]any{"status": r.status, "type": r.header.Get("Content-Type"), "body": r.body.String()}
	}))
	select {}
}
