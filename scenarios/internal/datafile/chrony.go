package datafile

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ChronyTracking is the format of chrony's tracking.log (the "log
// tracking" directive of chrony.conf).
const ChronyTracking = "chrony-tracking"

// chronyLine is a tracking.log measurement line: date and time (UTC),
// the reference, the stratum, then frequency (ppm), skew (ppm) and offset
// (s); the columns after the offset are not read.
var chronyLine = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)(\s|$)`)

// ChronyLog is what a tracking.log gave.
type ChronyLog struct {
	// Freq is the frequency column: the local oscillator's rate error as
	// chronyd estimated it, ppm, positive fast. Skew is its error bound.
	Freq, Skew []float64
	// At and Offset are each line's time since the first line and its
	// estimated offset of the system clock from true time (s, positive
	// fast).
	At     []time.Duration
	Offset []float64
}

// Chrony reads a tracking.log. Its banner lines (a row of '=' and the
// column names, repeated from time to time) are skipped.
func Chrony(data []byte) (ChronyLog, error) {
	var c ChronyLog
	if len(strings.TrimSpace(string(data))) == 0 {
		return c, fmt.Errorf("the file is empty; want %s", want[ChronyTracking])
	}
	var first time.Time
	for _, l := range lines(data) {
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "=") || strings.HasPrefix(t, "Date (UTC)") {
			continue
		}
		m := chronyLine.FindStringSubmatch(t)
		if m == nil {
			if other, ol := Detect(data); other != "" && other != ChronyTracking {
				return ChronyLog{}, fmt.Errorf("this looks like a %s file, not a chrony tracking.log (line %d: %s)", other, ol.n, quote(ol.text))
			}
			return ChronyLog{}, &LineError{l.n, t, "want " + want[ChronyTracking]}
		}
		at, err := time.Parse(time.DateTime, m[1])
		if err != nil {
			return ChronyLog{}, &LineError{l.n, t, "want the date and time as 2006-01-02 15:04:05"}
		}
		var v [3]float64
		for i, s := range m[4:7] {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return ChronyLog{}, &LineError{l.n, t, fmt.Sprintf("column %d (%s) is %q, not a number", 5+i, []string{"Freq ppm", "Skew ppm", "Offset"}[i], s)}
			}
			v[i] = f
		}
		if len(c.At) == 0 {
			first = at
		}
		if at.Before(first.Add(c.lastAt())) {
			return ChronyLog{}, &LineError{l.n, t, "the time goes back; want the lines in time order, as chronyd writes them"}
		}
		c.Freq, c.Skew, c.Offset = append(c.Freq, v[0]), append(c.Skew, v[1]), append(c.Offset, v[2])
		c.At = append(c.At, at.Sub(first))
	}
	if len(c.At) == 0 {
		return ChronyLog{}, fmt.Errorf("no measurement lines in the file; want %s", want[ChronyTracking])
	}
	return c, nil
}

func (c ChronyLog) lastAt() time.Duration {
	if len(c.At) == 0 {
		return 0
	}
	return c.At[len(c.At)-1]
}
