package resource

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model/proto"
	simres "github.com/redlocksim/redlocksim/model/resource"
)

// A write based on a version older than the model resource keeps
// (resource.Window) is refused with the model's own words, changes
// nothing, and breaks the server: every later request is refused the
// same way, and Err tells the harness why the run cannot be judged. The
// process goes on: the panic stays in the request that raised it.
func TestAWriteBeyondTheWindowBreaksTheServerCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a million versions")
	}
	s, _ := start(t, simres.Config{Mode: simres.Unprotected})
	c1, c2 := client(t, s, "c1"), client(t, s, "c2")
	require.Equal(t, int64(0), read(t, c1, 1, 0))
	// Past the window by the model directly: a million round trips
	// through the server would only be slower.
	s.mu.Lock()
	from := s.env.endpoint("c2")
	for i := range uint64(simres.Window + 1) {
		s.env.reset()
		s.res.Handle(&s.env, from, proto.Msg{Kind: proto.ResourceWrite, Int: s.res.Version(), Value: 1<<40 | i})
	}
	versions, final := s.res.Versions(), s.res.FinalLen()
	s.mu.Unlock()
	select {
	case <-s.Broken():
		t.Fatal("broken before the stale write")
	default:
	}
	require.NoError(t, s.Err())

	_, err := c1.Write(1, 0, 7, 0) // based on version 0, long forgotten
	require.Error(t, err)
	want := "resource: c1 writes element 0x7 based on version 0, 1048577 versions behind the current version 1048577, " +
		"but the resource keeps only the last 1048576 versions (resource.Window)"
	assert.True(t, strings.HasPrefix(err.Error(), "resource refused the request: "+want), "the client's error: %v", err)

	var we *simres.WindowError
	require.True(t, errors.As(s.Err(), &we), "Err: %v", s.Err())
	assert.Equal(t, simres.WindowError{Writer: "c1", Element: 7, Base: 0, Current: simres.Window + 1, Window: simres.Window}, *we)
	select {
	case <-s.Broken():
	default:
		t.Error("Broken not closed")
	}
	s.mu.Lock()
	assert.Equal(t, versions, s.res.Versions(), "versions: nothing changed")
	assert.Equal(t, final, s.res.FinalLen(), "final set: nothing changed")
	s.mu.Unlock()
	assert.Len(t, s.Ops(), 1, "only the first read is recorded")

	// Every later request, a fresh one too, is refused with the same words.
	_, _, err = c2.Read(2, 0)
	require.Error(t, err)
	assert.Equal(t, "resource refused the request: "+we.Error(), err.Error())
	_, err = c2.Write(2, 0, 8, int64(versions-1))
	require.Error(t, err)
	assert.Equal(t, "resource refused the request: "+we.Error(), err.Error())
	assert.Len(t, s.Ops(), 1)
	require.NoError(t, s.Close())
}
