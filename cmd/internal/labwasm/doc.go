// Labwasm is the lecture lab's simulator compiled to WebAssembly
// (GOOS=js GOARCH=wasm), for the lab that `redlocksim lab --export DIR`
// writes as static files: the page calls it where the served lab's page
// calls the server.
//
// It is the served lab's own handler (package lab's Server, without a
// directory), answering the page's API requests inside the browser: the
// page passes a request's path and query (api/run?s=gc-pause&...) to the
// global function redlocksimLab, which answers with the status, content
// type and body the server would have sent. So a run in the browser is the
// same code as a run of the served lab, and its run --json object is
// runjson's, with the version of the redlocksim that exported it (its
// first argument), byte for byte what `redlocksim run FILE --json --trace`
// prints for the downloaded file.
//
// Built for any other platform it only says what it is for.
package main
