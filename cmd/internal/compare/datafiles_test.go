package compare

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/scenarios"
)

// compare names a scenario's data files with their hashes, in the table
// and in the JSON; a scenario without one has no data_files key.
func TestCompareNamesDataFiles(t *testing.T) {
	files := []scenarios.DataFile{{Key: "clients.pauses.length", Path: "gc.log", Format: "jvm-gc", SHA256: strings.Repeat("ab", 32), Samples: 120}}
	rows := []Row{
		{Scenario: "mine", Agree: true, Availability: "agree", DataFiles: runjson.DataFiles(files), data: files},
		{Scenario: "plain", Agree: true, Availability: "agree"},
	}
	var b strings.Builder
	WriteTable(&b, rows)
	if want := "mine data: " + files[0].String(); !strings.Contains(b.String(), want) {
		t.Errorf("the table does not say %q:\n%s", want, b.String())
	}
	if strings.Contains(b.String(), "plain data:") {
		t.Errorf("a scenario without data files has a data line:\n%s", b.String())
	}
	js, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(js), `"data_files"`) != 1 || !strings.Contains(string(js), `"sha256":"`+files[0].SHA256+`"`) {
		t.Errorf("JSON: %s", js)
	}
}
