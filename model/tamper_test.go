package model_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/story"
)

// The lab's adversary acts on one message, named by its sender, receiver
// and send time: held (it arrives For after its send), delivered early,
// or dropped. Everything before that send is the run as it was, the
// message's fate is exactly what the fault says, and the trace says it.
func TestHoldAndDropOneMessage(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Duration = 3 * s
	base, err := model.RunTraced(cfg, 7)
	require.NoError(t, err)
	// The first message of all (a client's first SET-NX, sent by an event
	// scheduled before any fault's) and a later request.
	first := base.Messages[0]
	for _, m := range base.Messages {
		if m.Sent < first.Sent {
			first = m
		}
	}
	var later model.Message
	for _, m := range base.Messages {
		if m.Sent > 500*ms && m.Req != 0 && !m.Reply {
			later = m
			break
		}
	}
	require.NotZero(t, later.Sent)

	sentAt := func(r model.Result, m model.Message) (model.Message, bool) {
		for _, x := range r.Messages {
			if x.From == m.From && x.To == m.To && x.Sent == m.Sent {
				return x, true
			}
		}
		return model.Message{}, false
	}
	tamperLines := func(r model.Result) []string {
		var out []string
		for _, rec := range r.Trace {
			if rec.Kind == story.Tamper {
				out = append(out, story.Sentence(rec))
			}
		}
		return out
	}
	for _, m := range []model.Message{first, later} {
		lat := m.At - m.Sent
		for _, hold := range []time.Duration{2 * s, lat / 2} {
			c := cfg
			c.Faults = []model.Fault{{At: m.Sent, Kind: model.HoldMessage, Target: m.From, To: m.To, For: hold}}
			r, err := model.RunTraced(c, 7)
			require.NoError(t, err)
			got, ok := sentAt(r, m)
			require.True(t, ok, "the held message %+v arrives", m)
			assert.Equal(t, m.Sent+hold, got.At, "held %v: it arrives that long after its send", hold)
			assert.Len(t, tamperLines(r), 1)
			for i, x := range base.Messages {
				if x.At >= min(m.Sent+hold, m.At) {
					break
				}
				assert.Equal(t, x, r.Messages[i], "message %d, delivered before the held one, is as it was", i)
			}
		}
		c := cfg
		c.Faults = []model.Fault{{At: m.Sent, Kind: model.DropMessage, Target: m.From, To: m.To}}
		r, err := model.RunTraced(c, 7)
		require.NoError(t, err)
		_, ok := sentAt(r, m)
		assert.False(t, ok, "the dropped message %+v does not arrive", m)
		assert.Equal(t, base.Net.DroppedLoss+1, r.Net.DroppedLoss, "counted as a loss")
		lines := tamperLines(r)
		require.Len(t, lines, 1)
		assert.Contains(t, lines[0], "drops the message "+m.From+"→"+m.To)
	}
}

// A one-message fault names a link between two endpoints; a hold names
// its positive length.
func TestOneMessageFaultsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		f    model.Fault
		want string
	}{
		{model.Fault{At: s, Kind: model.HoldMessage, Target: "c1", To: "n1"}, "the time from the message's send to its arrival must be positive"},
		{model.Fault{At: s, Kind: model.HoldMessage, Target: "c1", For: s}, "required: the endpoint the message is sent to"},
		{model.Fault{At: s, Kind: model.DropMessage, Target: "c1", To: "c1"}, "target and to are both \"c1\""},
		{model.Fault{At: s, Kind: model.DropMessage, Target: "c9", To: "n1"}, "c9"},
	} {
		cfg := redlockWorld(2)
		cfg.Faults = []model.Fault{tc.f}
		_, err := model.Compile(&cfg)
		assert.ErrorContains(t, err, tc.want, "%+v", tc.f)
	}
}
