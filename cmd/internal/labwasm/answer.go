package main

import (
	"bytes"
	"context"
	"net/http"
	"net/url"

	"github.com/redlocksim/redlocksim/cmd/internal/lab"
	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// newLab is the served lab's handler, without a directory, whose runs
// print run --json's object stamped with version.
func newLab(version string) (*lab.Server, error) {
	return lab.New(lab.Options{RunJSON: func(file string, data []byte, sc *scenarios.Scenario, res model.Result) ([]byte, error) {
		return runjson.OfFile(version, file, data, sc, res)
	}})
}

// reply is what the handler answered.
type reply struct {
	status int
	header http.Header
	body   bytes.Buffer
}

func (r *reply) Header() http.Header { return r.header }

func (r *reply) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

func (r *reply) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

// answer asks h for target (a path with its query, relative to the lab:
// api/run?s=gc-pause), as the page of client would over HTTP.
func answer(h http.Handler, target, client string) *reply {
	r := &reply{header: http.Header{}}
	u, err := url.Parse("/" + target)
	if err != nil {
		r.status = http.StatusBadRequest
		r.header.Set("Content-Type", "application/json")
		r.body.WriteString(`{"error":"the page asked for a malformed address"}`)
		return r
	}
	req := (&http.Request{
		Method: http.MethodGet, URL: u, RequestURI: u.RequestURI(), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Host: "lab", RemoteAddr: "127.0.0.1:1",
	}).WithContext(context.Background())
	if client != "" {
		req.Header.Set("X-Lab-Client", client)
	}
	h.ServeHTTP(r, req)
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r
}
