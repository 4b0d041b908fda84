package lab

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
)

// ManifestName is the file that marks a directory as an export of the
// lab: it lists the files the export wrote, so that exporting again
// replaces them, and names the version the runs report.
const ManifestName = "redlocksim-lab.json"

// WasmName is the simulator compiled to WebAssembly, gzip-compressed: the
// page decompresses it itself (DecompressionStream), so that any static
// host serves it as it is.
const WasmName = "lab.wasm.gz"

// Export is what a static lab is made of besides the page: the simulator
// compiled to WebAssembly (cmd/internal/labwasm), the wasm_exec.js of the
// Go toolchain that compiled it, and the version of redlocksim that the
// runs' JSON names.
type Export struct {
	Wasm     []byte
	WasmExec []byte
	Version  string
}

type manifest struct {
	Version string   `json:"version"`
	Files   []string `json:"files"`
}

// ErrNotExport is the error of an export into a directory that holds
// files but is not an earlier export: the export would mix with them.
var ErrNotExport = errors.New("is not empty and is not an earlier export of the lab (it has no " + ManifestName + "); give a new or empty directory")

// CheckExportDir says whether dir can take an export (missing, empty,
// or an earlier export) before the simulator is compiled for it, which
// takes a while: a refusal should not wait for it. WriteExport checks
// again.
func CheckExportDir(dir string) error {
	_, err := previousExport(dir)
	return err
}

// WriteExport writes the static lab into dir (made if missing): the page,
// its script and style, the script that runs the simulator in the page,
// wasm_exec.js and the compressed simulator. Into an earlier export it
// replaces that export's files; into any other non-empty directory it
// refuses with ErrNotExport. It returns the files written and their total
// size in bytes.
func WriteExport(dir string, e Export) (files []string, size int64, err error) {
	old, err := previousExport(dir)
	if err != nil {
		return nil, 0, err
	}
	out, err := exportFiles(e)
	if err != nil {
		return nil, 0, err
	}
	for name := range out {
		files = append(files, name)
	}
	slices.Sort(files)
	m, err := json.MarshalIndent(manifest{Version: e.Version, Files: files}, "", "  ")
	if err != nil {
		return nil, 0, err
	}
	out[ManifestName] = append(m, '\n')
	files = append(files, ManifestName)
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		return nil, 0, err
	}
	for _, name := range files {
		if _, err := atomicfile.Write(filepath.Join(dir, filepath.FromSlash(name)), out[name]); err != nil {
			return nil, 0, err
		}
		size += int64(len(out[name]))
	}
	// What an earlier export wrote and this one does not is stale.
	for _, name := range old {
		if _, ok := out[name]; !ok && validExportName(name) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(name)))
		}
	}
	return files, size, nil
}

// previousExport checks dir: missing or empty is fine, an earlier export
// returns the files its manifest lists, anything else is ErrNotExport.
func previousExport(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s %w", dir, ErrNotExport)
	}
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v: not an export of the lab; give a new or empty directory", filepath.Join(dir, ManifestName), err)
	}
	return m.Files, nil
}

// validExportName is a name an export could have written: a base name or
// assets/NAME, so that a doctored manifest cannot remove anything else.
func validExportName(name string) bool {
	rest, _ := strings.CutPrefix(name, "assets/")
	return rest != "" && !strings.ContainsAny(rest, `/\`) && rest != "." && rest != ".."
}

// exportScripts are what the exported page loads before its own script:
// Go's loader, then the one that runs the simulator in place of the server.
const exportScripts = `<script src="assets/wasm_exec.js"></script>
<script src="assets/static.js"></script>
`

// exportFiles are the export's files by their slash-separated names.
func exportFiles(e Export) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range []string{"index.html", "app.js", "style.css", "static.js"} {
		data, err := fs.ReadFile(assets, "assets/"+name)
		if err != nil {
			return nil, err
		}
		out["assets/"+name] = data
	}
	page := out["assets/index.html"]
	delete(out, "assets/index.html")
	const at = `<script src="assets/app.js"></script>`
	if !bytes.Contains(page, []byte(at)) {
		return nil, errors.New("the page does not load assets/app.js (a bug)")
	}
	out["index.html"] = bytes.Replace(page, []byte(at), []byte(exportScripts+at), 1)
	out["assets/wasm_exec.js"] = e.WasmExec
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(e.Wasm); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	out[WasmName] = z.Bytes()
	return out, nil
}
