package main

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/runview"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios"
)

// drawTimeline draws the run's timeline to path; a positive to zooms into
// [from, to].
func drawTimeline(path string, sc *scenarios.Scenario, res model.Result, from, to time.Duration) error {
	t := runview.Timeline(sc, res)
	if from != 0 || to != 0 {
		t.From, t.To = from, cmp.Or(to, res.End)
	}
	if strings.EqualFold(filepath.Ext(path), ".svg") {
		// The SVG the report inlines: the same figure, with a hover title
		// over every bar, mark and arrow saying what it is and when.
		svg, err := plots.TimelineSVG(t)
		if err != nil {
			return fmt.Errorf("drawing the timeline: %w", err)
		}
		_, err = atomicfile.Write(path, svg)
		return err
	}
	p, err := plots.TimelinePlot(t)
	if err != nil {
		return fmt.Errorf("drawing the timeline: %w", err)
	}
	w, h := plots.TimelineSize(t)
	return saveFigure(p, path, w, h)
}
