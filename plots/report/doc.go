// Package report writes the debate report: one self-contained HTML page
// that walks the Redlock debate scenario by scenario, for a lecture hall
// or a paper's supplement.
//
// It takes plain data, as its parent package plots does: a Page of
// scenarios (their verdicts, metrics, narrated trace, what-if table, replay
// command and timeline as SVG) and figures, and returns bytes; it imports
// nothing of the simulator, not even plots. The caller (cmd/redlocksim
// report) runs the scenarios and draws the figures.
//
// The page fetches nothing: styles are inline, figures are inline SVG,
// there is no script, and links point only at anchors in the page, so
// that it reads the same offline and projected. html/template escapes
// every text; only the SVG the plots package drew is inserted as markup.
package report
