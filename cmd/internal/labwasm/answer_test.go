package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answer gives the page what the served lab sends over HTTP for the same
// request: status, content type and body, a run and a loader error alike,
// and the adversary's actions (the exported lab's holds, drops, freezes
// and wakes, and their refusals, are the server's).
func TestAnswerIsTheServersAnswer(t *testing.T) {
	srv, err := newLab("v-test")
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, target := range []string{
		"api/run?s=gc-pause&seed=3",
		"api/run?s=gc-pause&set=faults%5B0%5D.for%3D5",
		"api/inject?s=gc-pause&seed=1&kind=pause&target=c2&at=20000000000ns&for=11s",
		"api/inject?s=gc-pause&seed=1&kind=hold-message&target=c2&to=n3&at=1000000000&for=5",
		"api/inject?s=gc-pause&seed=1&kind=hold-message&target=c2&to=c2&at=1000000000&for=1s",
		"api/download?s=clock-jump",
		"api/scenarios",
		"api/nothing",
	} {
		resp, err := http.Get(hs.URL + "/" + target)
		require.NoError(t, err)
		var want []byte
		want, err = readAll(resp)
		require.NoError(t, err)
		got := answer(srv, target, "")
		assert.Equal(t, resp.StatusCode, got.status, target)
		assert.Equal(t, resp.Header.Get("Content-Type"), got.header.Get("Content-Type"), target)
		assert.True(t, string(want) == got.body.String(), "%s: the body differs from the server's", target)
	}
	assert.True(t, strings.Contains(answer(srv, "api/run?s=gc-pause", "").body.String(), `"version":"v-test"`), "the run names the exporter's version")
}

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
