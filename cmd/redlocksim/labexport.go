package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/lab"
)

// labWasmPackage is the lab's WebAssembly half, which --export builds.
const labWasmPackage = "github.com/redlocksim/redlocksim/cmd/internal/labwasm"

// exportLab writes the static lab into dir: the simulator compiled to
// WebAssembly (wasmFile if given, else built now with the go toolchain
// from this binary's own source), Go's wasm_exec.js and the page.
func exportLab(ctx context.Context, dir, wasmFile string, stdout io.Writer) error {
	// The directory first: compiling the simulator takes a while, and a
	// refused directory should not wait for it.
	if err := lab.CheckExportDir(dir); err != nil {
		return badInputf("redlocksim lab --export: %v", err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return badInputf("redlocksim lab --export: the go toolchain is needed (for wasm_exec.js, and to compile the simulator to WebAssembly): %v", err)
	}
	var wasm []byte
	if wasmFile != "" {
		if wasm, err = os.ReadFile(wasmFile); err != nil {
			return badInputf("redlocksim lab --wasm: %v", err)
		}
		if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
			return badInputf("redlocksim lab --wasm %s: not a WebAssembly module (build it with GOOS=js GOARCH=wasm go build %s)", wasmFile, labWasmPackage)
		}
	} else if wasm, err = buildLabWasm(ctx, goTool); err != nil {
		return err
	}
	wasmExec, err := wasmExecJS(ctx, goTool)
	if err != nil {
		return err
	}
	files, size, err := lab.WriteExport(dir, lab.Export{Wasm: wasm, WasmExec: wasmExec, Version: version()})
	if err != nil {
		return badInputf("redlocksim lab --export: %v", err)
	}
	fmt.Fprintf(stdout, "redlocksim lab: wrote the lab to %s: %d files, %.1f MB (the simulator %.1f MB uncompressed); put the directory on any static web server\n",
		dir, len(files), float64(size)/1e6, float64(len(wasm))/1e6)
	return nil
}

// moduleRoot is the source this binary was built from: the module root
// above this file as the compiler saw it (a checkout, or the module
// cache for go install), else the module of the working directory.
func moduleRoot(ctx context.Context, goTool string) (string, error) {
	isRoot := func(dir string) bool {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		return err == nil && bytes.HasPrefix(data, []byte("module github.com/redlocksim/redlocksim\n"))
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if dir := filepath.Join(filepath.Dir(file), "..", ".."); isRoot(dir) {
			return dir, nil
		}
	}
	out, err := exec.CommandContext(ctx, goTool, "env", "GOMOD").Output()
	if err == nil {
		if dir := filepath.Dir(strings.TrimSpace(string(out))); isRoot(dir) {
			return dir, nil
		}
	}
	return "", errors.New("redlocksim lab --export: the simulator is compiled from redlocksim's source, which is not where this binary was built; run it in a checkout of redlocksim, or give a prebuilt module with --wasm FILE")
}

// buildLabWasm compiles the lab's WebAssembly half without debug
// information (-s -w) and without local paths (-trimpath).
func buildLabWasm(ctx context.Context, goTool string) ([]byte, error) {
	root, err := moduleRoot(ctx, goTool)
	if err != nil {
		return nil, badInput(err)
	}
	tmp, err := os.MkdirTemp("", "redlocksim-lab-wasm-")
	if err != nil {
		return nil, badInputf("redlocksim lab --export: %v", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "lab.wasm")
	cmd := exec.CommandContext(ctx, goTool, "build", "-trimpath", "-ldflags=-s -w", "-o", out, labWasmPackage)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, badInputf("redlocksim lab --export: compiling the simulator to WebAssembly in %s: %v\n%s", root, err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, badInputf("redlocksim lab --export: %v", err)
	}
	return data, nil
}

// wasmExecJS is the go toolchain's loader for a js/wasm module: in
// lib/wasm since Go 1.24, in misc/wasm before.
func wasmExecJS(ctx context.Context, goTool string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, goTool, "env", "GOROOT").Output()
	if err != nil {
		return nil, badInputf("redlocksim lab --export: go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if data, err := os.ReadFile(filepath.Join(goroot, p)); err == nil {
			return data, nil
		}
	}
	return nil, badInputf("redlocksim lab --export: no wasm_exec.js in %s (lib/wasm or misc/wasm)", goroot)
}
