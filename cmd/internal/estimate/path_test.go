package estimate

import (
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
)

// TestDescribePathNamesTheRightPause: with a tail formula the sentence
// names the least likely pause; without one (a uniform or an empirical
// table) it names the longest, and says so, rather than the first with a
// made-up probability of 1.
func TestDescribePathNamesTheRightPause(t *testing.T) {
	pauses := []model.RandomPause{
		{Client: "c1", At: time.Second, For: 4 * time.Millisecond},
		{Client: "c2", At: 2 * time.Second, For: 3 * time.Second},
		{Client: "c1", At: 3 * time.Second, For: 50 * time.Millisecond},
	}
	for _, c := range []struct {
		length network.Latency
		want   string
	}{
		{network.Lognormal(20*time.Millisecond, 1), "c2 pauses for 3s at 2s, a pause the model draws this long with probability"},
		{network.Uniform(time.Millisecond, 5*time.Second), "c2 pauses for 3s at 2s, the longest of 3 random pauses in the run"},
	} {
		cfg := &model.Config{Clients: []model.ClientConfig{
			{Name: "c1", Pauses: model.PauseConfig{Every: time.Second, Length: c.length}},
			{Name: "c2", Pauses: model.PauseConfig{Every: time.Second, Length: c.length}},
		}}
		got := describePath(cfg, pauses, 7)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: got %q, want it to start %q", c.length, got, c.want)
		}
	}
}
